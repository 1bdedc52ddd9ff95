/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libsaakm: a small C API for moving tasks (including the caller) onto a
 * SaaKM scheduling policy and for reading /proc/saakm. Used by the saakm(1)
 * CLI in tools/saakm.c; link with libsaakm.a and add
 * -I<repo>/kernel/src/include/uapi (for <linux/saakm.h>).
 *
 *	int id = saakm_policy_id("fifo");
 *	if (id < 0 || (id = saakm_set(0, id, NULL, 0, 0)) < 0)
 *		fprintf(stderr, "%s\n", saakm_strerror(id));
 *
 * Every function returns a negative errno on failure. The /proc/saakm
 * directory can be overridden with the SAAKM_PROC environment variable
 * (for tests against fixture files).
 *
 * Every /proc/saakm file has one format: one record a
 * line, space-separated key=value fields, parsed by key. This is the only
 * parser of it: the CLI, the tests and the benchmarks call it.
 */
#ifndef SAAKM_LIB_H
#define SAAKM_LIB_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/saakm.h>

#define SCHED_SAAKM		8
#define SAAKM_RESET_ON_FORK	0x01	/* children leave the policy */
#define SCHED_FLAG_RESET_ON_FORK	0x01
#define SCHED_ATTR_SIZE_VER0		48
#define SCHED_ATTR_SIZE_VER2		72

/*
 * struct sched_attr of <linux/sched/types.h> with the SaaKM fields, for
 * programs that call sched_setattr()/sched_getattr() themselves: the libc
 * headers of older distributions predate SCHED_ATTR_SIZE_VER2.
 */
struct saakm_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
	/* SCHED_ATTR_SIZE_VER2 */
	uint32_t sched_saakm_id;
	uint32_t sched_saakm_attr_size;
	uint64_t sched_saakm_attr;
};
static_assert(sizeof(struct saakm_sched_attr) == SCHED_ATTR_SIZE_VER2,
	      "sched_attr VER2 layout");

struct saakm_policy_info {
	int id;
	int tasks;
	char name[SAAKM_NAME_LEN];
	char state[16];			/* enabled, disabling or ejected */
	int state_id;			/* SAAKM_POLICY_<STATE>, -1 if unknown */
	int slot;			/* precedence slot; -1: not in the file */
	int balance_ms;			/* -1: not in the file */
	int timeout_ms;			/* -1: not in the file */
	int unprivileged;		/* 0 or 1; -1: not in the file */
	char module[64];		/* its module, "-" if built in; "" if not in the file */
	int generation;			/* live upgrades so far; -1: not in the file */
	long long upgrade_ns;		/* the last one's stop of all CPUs; -1: not in the file */
};

/*
 * Name tables, built from the X-macro lists of <linux/saakm.h>: task
 * states (SAAKM_ST_READY, ...), events (SAAKM_EV_NEW_PLACE, ..., the
 * counters of /proc/saakm/events) and policy states (SAAKM_POLICY_ENABLED,
 * ...). The index of a name is its kernel enum value.
 */
#define SAAKM_X_STATE(NAME)		SAAKM_ST_##NAME,
#define SAAKM_X_EVENT(NAME, name)	SAAKM_EV_##NAME,
#define SAAKM_X_POLICY(NAME, name)	SAAKM_POLICY_##NAME,
enum saakm_task_state { SAAKM_STATES(SAAKM_X_STATE) SAAKM_NR_STATES };
enum saakm_event { SAAKM_EVENTS(SAAKM_X_EVENT) SAAKM_NR_EVENTS };
enum saakm_policy_state { SAAKM_POLICY_STATES(SAAKM_X_POLICY) SAAKM_NR_POLICY_STATES };
#undef SAAKM_X_STATE
#undef SAAKM_X_EVENT
#undef SAAKM_X_POLICY

extern const char *const saakm_state_names[SAAKM_NR_STATES];	/* "READY", ... */
extern const char *const saakm_event_names[SAAKM_NR_EVENTS];	/* "new_place", ... */
extern const char *const saakm_policy_state_names[SAAKM_NR_POLICY_STATES]; /* "enabled", ... */

/* Index of @name in the table above, or -1 if it is not there. */
int saakm_state_index(const char *name);
int saakm_event_index(const char *name);
int saakm_policy_state_index(const char *name);

/* The /proc/saakm directory in use: $SAAKM_PROC or "/proc/saakm". */
const char *saakm_proc_root(void);

/* fopen() a file of /proc/saakm ("policies", "events", "errors", "cpus"). */
FILE *saakm_proc_fopen(const char *file);

/*
 * One record (line) of a /proc/saakm file: space-separated key=value
 * fields, looked up by key (saakm_record_get()). A "reason" field takes the
 * rest of the line, spaces included (the last field of /proc/saakm/errors).
 * Fields past SAAKM_RECORD_MAX, and text that is not key=value, are ignored.
 */
#define SAAKM_RECORD_MAX	64
struct saakm_record {
	int nr;					/* fields */
	const char *key[SAAKM_RECORD_MAX];
	const char *val[SAAKM_RECORD_MAX];
	char buf[4096];				/* the line, split in place */
};

/* Split @line into @rec. Return: the number of fields (0: not a record). */
int saakm_record_parse(struct saakm_record *rec, const char *line);

/* The value of @key in @rec, or NULL if the record has no such field. */
const char *saakm_record_get(const struct saakm_record *rec, const char *key);

/*
 * The value of @key in @rec as a decimal number in *@val.
 * Return: 0, -ENOENT (no such field) or -EINVAL (not a number).
 */
int saakm_record_num(const struct saakm_record *rec, const char *key, long long *val);

/*
 * Call @fn for each record of /proc/saakm/@file, in file order, until it
 * returns non-zero. Return: what @fn returned if it stopped the walk, else
 * the number of records; -ENOSYS if there is no /proc/saakm, or -errno.
 */
int saakm_proc_each(const char *file,
		    int (*fn)(const struct saakm_record *rec, void *arg), void *arg);

/*
 * The last record of /proc/saakm/@file whose name= is @name, into @rec.
 * Return: 0, -ENOENT if there is none, -ENOSYS, or -errno.
 */
int saakm_proc_find(const char *file, const char *name, struct saakm_record *rec);

/*
 * Fill @out with up to @max loaded policies (@out may be NULL if @max is 0).
 * Return: the number of policies loaded (may exceed @max), -ENOSYS if the
 * kernel has no SaaKM, or another -errno.
 */
int saakm_list(struct saakm_policy_info *out, int max);

/* The line of policy @name in /proc/saakm/policies. Return: 0, -ENOENT, -ENOSYS. */
int saakm_policy_get(const char *name, struct saakm_policy_info *pi);

/*
 * Resolve a policy name or a decimal id to the id of a loaded policy.
 * Return: the id (> 0), -ENOENT if no such policy is loaded, -ENOSYS.
 */
int saakm_policy_id(const char *name_or_id);

/* Copy the name of loaded policy @id into @buf. Return: 0, -ENOENT, -ENOSYS. */
int saakm_policy_name(int id, char *buf, size_t len);

/* Tasks attached to policy @name (>= 0), -ENOENT if it is not listed, -ENOSYS. */
int saakm_policy_tasks(const char *name);

/* A policy's line in /proc/saakm/events. */
struct saakm_events {
	char name[SAAKM_NAME_LEN];
	long long count[SAAKM_NR_EVENTS];	/* by enum saakm_event; -1: absent */
	long long bad_transitions;		/* -1: absent */
};

/* The event counters of policy @name. Return: 0, -ENOENT, -ENOSYS. */
int saakm_events_get(const char *name, struct saakm_events *ev);

/*
 * Counter @key ("new_place", ..., "bad_transitions") of policy @name in
 * /proc/saakm/events. Return: the count (>= 0), -ENOENT (no such policy or
 * counter), -ENOSYS.
 */
long long saakm_event_count(const char *name, const char *key);

/* An ejected policy's line in /proc/saakm/errors. */
struct saakm_error {
	char name[SAAKM_NAME_LEN];
	char kind[32];				/* "stall", ... */
	char reason[256];			/* free text */
};

/* The latest error of policy @name. Return: 0, -ENOENT (none), -ENOSYS. */
int saakm_error_get(const char *name, struct saakm_error *err);

/* A line of /proc/saakm/cpus: one (online CPU, policy) pair. */
struct saakm_cpu_info {
	int cpu;
	char name[SAAKM_NAME_LEN];
	long long ready;			/* READY tasks queued on the CPU */
	long long parked;			/* RUNNING tasks parked by the class */
	long long picks;			/* tasks schedule() returned there */
	long long migrations;			/* tasks moved to the CPU */
	/* Wake-to-run waits that ended on the CPU: see SAAKM_WAKE_HIST_BUCKETS */
	long long wake_count;			/* the sum of wake_hist[] */
	long long wake_sum_ns;
	long long wake_hist[SAAKM_WAKE_HIST_BUCKETS];
};

/*
 * Fill @out with up to @max lines of /proc/saakm/cpus for policy @name
 * (NULL: every policy). A field the kernel does not show is -1 (the wake
 * histogram: wake_count -1 and wake_hist all 0). Return: how many there are (may exceed @max),
 * -ENOSYS, or -errno.
 */
int saakm_cpus(const char *name, struct saakm_cpu_info *out, int max);

/*
 * The latency below which a fraction @q (0..1) of the waits of histogram
 * @hist (SAAKM_WAKE_HIST_BUCKETS counts) fall, in microseconds, by linear
 * interpolation within the bucket that holds it; the last, unbounded bucket
 * gives its lower bound. Return: -1 if the histogram is empty.
 */
double saakm_hist_quantile(const long long *hist, double q);

/* The upper bound of histogram bucket @i in microseconds; -1 for the last. */
double saakm_hist_bound_us(int i);

/*
 * Move task @pid (0: the caller) onto policy @id, keeping its nice value,
 * and pass it the policy-defined @blob of @size bytes (NULL, 0: none).
 * @flags: SAAKM_RESET_ON_FORK or 0. @id SAAKM_ID_KEEP re-configures a task
 * already on a policy.
 * Return: 0, or -EPERM (needs CAP_SYS_NICE), -ESRCH (no such task),
 * -E2BIG (blob larger than SAAKM_ATTR_MAX_SIZE), -EINVAL (unknown or
 * disabling policy, or the policy refused the blob), -ENOSYS (no SaaKM).
 */
int saakm_set(pid_t pid, int id, const void *blob, size_t size, unsigned flags);

/* Like saakm_set(), but also set the task's nice value to @nice. */
int saakm_set_nice(pid_t pid, int id, int nice, const void *blob, size_t size,
		   unsigned flags);

/*
 * Read task @pid's Linux scheduling policy (SCHED_OTHER, ..., SCHED_SAAKM)
 * and, if @id is not NULL, its SaaKM policy id (0 unless SCHED_SAAKM).
 * @prio and @reset_on_fork may be NULL.
 * Return: the Linux policy (>= 0) or -errno (-ESRCH: no such task).
 */
int saakm_get_full(pid_t pid, int *id, int *prio, int *reset_on_fork);
int saakm_get(pid_t pid, int *id);

/* Name of a Linux scheduling policy: "SCHED_OTHER", ..., "SCHED_SAAKM". */
const char *saakm_sched_name(int policy);

/* A helpful message for an error returned above (negative or positive errno). */
const char *saakm_strerror(int err);

#endif /* SAAKM_LIB_H */
