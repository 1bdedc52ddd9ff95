/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libsaakm recordings: the file "saakm record" writes and "saakm replay" and
 * "saakm trace-json" read (struct saakm_rec_header, then nr_records struct
 * saakm_rec sorted by seq, little-endian; <linux/saakm_replay.h>), and the
 * conversion from the text of the saakm:saakm_record trace event.
 *
 *	struct saakm_recording r;
 *	char err[256];
 *
 *	if (saakm_rec_read("saakm.rec", &r, err, sizeof(err)))
 *		fprintf(stderr, "%s\n", err);
 *
 * This part of libsaakm (saakm_rec.o) does not need the rest (saakm.o),
 * so that the replay program can link it next to libusim.
 *
 * Functions that can fail return 0 or a negative errno and, when given an
 * @err buffer, a message naming the file and what is wrong with it.
 */
#ifndef SAAKM_REC_H
#define SAAKM_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/saakm_replay.h>
#include "saakm.h"

/* Record kinds (SAAKM_REC_CALL, ...), numbered like the kernel's. */
#define SAAKM_X_REC_KIND(NAME, name)	SAAKM_REC_##NAME,
enum saakm_rec_kind { SAAKM_REC_KINDS(SAAKM_X_REC_KIND) SAAKM_NR_REC_KINDS };
#undef SAAKM_X_REC_KIND

extern const char *const saakm_rec_kind_names[SAAKM_NR_REC_KINDS];	/* "call", ... */
int saakm_rec_kind_index(const char *name);

/* Names of the input kinds, from SAAKM_INPUTS: "running_ns", ... */
extern const char *const saakm_input_names[SAAKM_NR_INPUTS];
/* The name of input @which, or "?" for an unknown one. */
const char *saakm_input_name(unsigned int which);

/*
 * May a policy move a task from state @from to @to (SAAKM_TRANSITIONS)? For
 * tools that read recordings; the class and libusim judge with saakm_check.c.
 */
bool saakm_rec_transition_ok(int from, int to);

/* What callback @ev returns: nothing, an int (a CPU or an errno), or a task. */
enum saakm_ev_ret { SAAKM_RET_VOID, SAAKM_RET_INT, SAAKM_RET_TASK };
enum saakm_ev_ret saakm_ev_returns(int ev);

/* Does callback @ev take a CPU argument (else CALL cpu is task_cpu(p))? */
bool saakm_ev_has_cpu(int ev);

/* Does callback @ev take a task argument? */
bool saakm_ev_has_task(int ev);

/* A recording in memory. */
struct saakm_recording {
	struct saakm_rec_header hdr;
	struct saakm_rec *recs;
	size_t nr, alloc;
};

/* An empty header for @policy, @module, @params (any may be NULL), @nr_cpus. */
void saakm_rec_header_init(struct saakm_rec_header *h, const char *policy,
			   const char *module, const char *params, unsigned int nr_cpus);

/* Append @r to @rec (grows it). Return: 0 or -ENOMEM. */
int saakm_rec_push(struct saakm_recording *rec, const struct saakm_rec *r);

/* Free the records of @rec and empty it. */
void saakm_recording_free(struct saakm_recording *rec);

/*
 * Check a header and its records: magic, version, names NUL-terminated,
 * known kinds, events and states, seq strictly increasing.
 * Return: 0 or -EINVAL with the first problem in @err.
 */
int saakm_rec_check(const struct saakm_rec_header *h, const struct saakm_rec *recs,
		    size_t nr, char *err, size_t errlen);

/* Write @h (nr_records set to @nr) and @recs to @path. Return: 0 or -errno. */
int saakm_rec_write(const char *path, const struct saakm_rec_header *h,
		    const struct saakm_rec *recs, size_t nr, char *err, size_t errlen);

/*
 * Read and check the recording at @path into @rec (free it with
 * saakm_recording_free()). Return: 0, -ENOENT etc. (cannot open), -EINVAL
 * (not a valid recording: short, corrupt, wrong version).
 */
int saakm_rec_read(const char *path, struct saakm_recording *rec, char *err, size_t errlen);

/* --- the trace text of saakm:saakm_record -------------------------------------- */

/*
 * Parse one line of a tracefs "trace" file. A record line reads
 *   COMM-PID [CPU] FLAGS TS: saakm_record: policy=ID seq=N kind=K ev=E cpu=C pid=P a=A b=B c=X
 * (FLAGS optional, TS in seconds with 6 or 9 decimals).
 * Return: 1 and *@r, *@policy filled for a record line; 0 for any other
 * line (comments, other events); -EINVAL for a saakm_record line that
 * cannot be parsed.
 */
int saakm_rec_parse_line(const char *line, struct saakm_rec *r, int *policy);

/* What saakm_rec_parse_trace() saw besides the records it kept. */
struct saakm_trace_stats {
	unsigned long long lines;		/* lines read */
	unsigned long long other_policy;	/* records of another policy, skipped */
	unsigned long long lost_lines;		/* events counted in "[LOST n EVENTS]" lines */
	unsigned long long bad;			/* saakm_record lines not understood */
	unsigned long long first_bad_line;	/* line number of the first of them */
};

/*
 * Append the records of policy @policy (0: any) found in trace text @f to
 * @rec, in file order. Return: 0, -ENOMEM, -EIO.
 */
int saakm_rec_parse_trace(FILE *f, int policy, struct saakm_recording *rec,
			  struct saakm_trace_stats *st);

/*
 * Sort @rec by seq. Return: 0, or -EEXIST if a seq appears twice (*@dup is
 * set to it: two recordings mixed up).
 */
int saakm_rec_sort(struct saakm_recording *rec, uint64_t *dup);

/*
 * Records missing from sorted @recs: seq numbers from 1 to the last one
 * that are not there. *@first_missing (may be NULL): the first such seq, 0
 * if none.
 */
uint64_t saakm_rec_gaps(const struct saakm_rec *recs, size_t nr, uint64_t *first_missing);

/* --- the kernel's recording arrays (/proc/saakm/record_buf) ------------------------ */

/*
 * Read the stream of /proc/saakm/record_buf from @f: its struct
 * saakm_rec_buf_info into *@info, its records appended to @rec in the
 * order read (each CPU's in turn: sort them), a RET folded into its CALL's
 * slot as a record of its own after it. Return: 0, or -EINVAL with
 * the reason in @err (not that stream, another record size, fewer or more
 * records than announced), or -errno.
 */
int saakm_rec_read_buf(FILE *f, struct saakm_recording *rec, struct saakm_rec_buf_info *info,
		       char *err, size_t errlen);

/*
 * Time the records of sorted @rec that the kernel did not time: within a
 * callback it times only the CALL (the others have 0, or the CALL's time
 * if unfolded from its slot). Each gets the time of the record before it
 * on its CPU, if that is later: a CPU's times then never go back. Return:
 * 0 or -ENOMEM.
 */
int saakm_rec_fill_times(struct saakm_recording *rec);

/*
 * Events a ring buffer lost, from a tracefs per_cpu/cpuN/stats file:
 * "overrun" + "commit overrun" + "dropped events". Return: 0 or -errno.
 */
int saakm_rec_cpu_lost(const char *stats_path, uint64_t *lost);

/* --- text -------------------------------------------------------------------------- */

/* Names of event @ev and state @s ("?" if unknown); same as libsaakm's tables. */
const char *saakm_rec_event_name(int ev);
const char *saakm_rec_state_name(uint64_t s);

/* One line describing @r for people ("CALL schedule cpu 1", ...), into @buf. */
const char *saakm_rec_format(const struct saakm_rec *r, char *buf, size_t len);

#endif /* SAAKM_REC_H */
