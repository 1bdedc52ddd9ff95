// SPDX-License-Identifier: GPL-2.0
/*
 * mkbuf: play the kernel's /proc/saakm/record_buf for t_record.sh. Reads a
 * trace text of saakm:saakm_record events (a fixture) from stdin and writes
 * to stdout what the kernel's arrays would give after recording policy ID:
 * a struct saakm_rec_buf_info, then the policy's records CPU by CPU, each
 * CPU's in the order of the trace, folded as the kernel does: a call's
 * first STATE and its RET go into its CALL's slot, and the records within
 * a call but its CALL are not timed (ts_ns 0).
 *
 *   mkbuf ID DROPPED [INFO_ID [NR_EXTRA [NOFOLD]]] <TRACE >STREAM
 *
 * DROPPED: the info's count of dropped records. INFO_ID: the policy id the
 * info names (default ID). NR_EXTRA: added to the info's slot count
 * (negative: a stream with more slots than announced). NOFOLD: 1 writes
 * every record in a slot of its own, with its time.
 */
#include <stdlib.h>
#include <string.h>
#include "saakm_rec.h"

/* The slots of one CPU, and the CALL slot its next STATE and RET go into. */
struct cpu_slots {
	struct saakm_rec_slot *s;
	size_t nr;
	size_t call;	/* index + 1 of the open CALL's slot, 0 if none */
};

static struct saakm_rec_slot slot_of(const struct saakm_rec *r)
{
	return (struct saakm_rec_slot){
		.seq = r->seq, .ts_ns = r->ts_ns, .c = r->c, .pid = r->pid, .a = r->a,
		.b = r->b, .cpu = r->cpu, .kind = r->kind, .ev = r->ev, .on_cpu = r->on_cpu,
	};
}

/* Fold @r into @c's open CALL slot if the kernel would. Return: 1 if it did. */
static int fold(struct cpu_slots *c, const struct saakm_rec *r)
{
	struct saakm_rec_slot *call = c->call ? &c->s[c->call - 1] : NULL;

	if (!call || r->seq - call->seq > UINT16_MAX)
		return 0;
	if (r->kind == SAAKM_REC_STATE && !call->st_delta) {
		call->st_delta = r->seq - call->seq;
		call->st_pid = r->pid;
		call->st_cpu = r->cpu;
		call->st_rq = r->b;
		call->st_new = r->a;
		call->st_old = r->c;
		return 1;
	}
	if (r->kind == SAAKM_REC_RET && r->ev == call->ev) {
		call->ret_delta = r->seq - call->seq;
		call->ret = r->a;
		c->call = 0;
		return 1;
	}
	return 0;
}

/* Add @r to its CPU's slots; Return: 0, or -1 without memory. */
static int add(struct cpu_slots *c, const struct saakm_rec *r, int nofold)
{
	struct saakm_rec_slot sl = slot_of(r);
	int in_call = c->call != 0;

	if (!nofold && fold(c, r))
		return 0;
	if (r->kind == SAAKM_REC_RET)
		c->call = 0;
	if (!nofold && in_call && r->kind != SAAKM_REC_CALL)
		sl.ts_ns = 0;
	c->s = realloc(c->s, (c->nr + 1) * sizeof(*c->s));
	if (!c->s)
		return -1;
	c->s[c->nr++] = sl;
	if (r->kind == SAAKM_REC_CALL)
		c->call = c->nr;
	return 0;
}

int main(int argc, char **argv)
{
	struct saakm_recording rec = { 0 };
	struct saakm_rec_buf_info info = { 0 };
	struct saakm_trace_stats st;
	struct cpu_slots *cpus;
	unsigned int max_cpu = 0;
	size_t slots = 0;
	int nofold;

	if (argc < 3 || argc > 6) {
		fprintf(stderr, "usage: mkbuf ID DROPPED [INFO_ID [NR_EXTRA [NOFOLD]]] <TRACE >STREAM\n");
		return 2;
	}
	if (saakm_rec_parse_trace(stdin, atoi(argv[1]), &rec, &st)) {
		fprintf(stderr, "mkbuf: cannot parse the trace\n");
		return 1;
	}
	nofold = argc > 5 && atoi(argv[5]);
	for (size_t i = 0; i < rec.nr; i++)
		if (rec.recs[i].on_cpu > max_cpu)
			max_cpu = rec.recs[i].on_cpu;
	cpus = calloc(max_cpu + 1, sizeof(*cpus));
	if (!cpus)
		return 1;
	for (size_t i = 0; i < rec.nr; i++)
		if (add(&cpus[rec.recs[i].on_cpu], &rec.recs[i], nofold))
			return 1;
	for (unsigned int cpu = 0; cpu <= max_cpu; cpu++)
		slots += cpus[cpu].nr;
	memcpy(info.magic, SAAKM_REC_BUF_MAGIC, sizeof(info.magic));
	info.rec_size = sizeof(struct saakm_rec_slot);
	info.nr_cpus = max_cpu + 1;
	info.policy_id = argc > 3 ? atoi(argv[3]) : atoi(argv[1]);
	info.buf_kb = 1024;
	info.nr_records = slots + (argc > 4 ? atoll(argv[4]) : 0);
	info.dropped = strtoull(argv[2], NULL, 10);
	fwrite(&info, sizeof(info), 1, stdout);
	for (unsigned int cpu = 0; cpu <= max_cpu; cpu++) {
		fwrite(cpus[cpu].s, sizeof(*cpus[cpu].s), cpus[cpu].nr, stdout);
		free(cpus[cpu].s);
	}
	free(cpus);
	saakm_recording_free(&rec);
	return ferror(stdout) ? 1 : 0;
}
