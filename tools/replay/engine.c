// SPDX-License-Identifier: GPL-2.0
/*
 * The replay engine: main() of the program "saakm replay" builds from a
 * policy's source, this file and libusim (tools/usim), and runs as
 *	ENGINE FILE [--last N] [-v]
 *
 * It loads the policy with the recorded module parameters on as many CPUs
 * as the recording's machine had, then walks the recording in seq order:
 * every CALL is made again (usim_call(), with the recorded task CPU, nice
 * and affinity), every FORCE (the class's own move) is applied, and what
 * the policy does is checked against the records of the call: the STATE
 * records (saakm_change_state()), the INPUT records (what
 * saakm_running_ns() / saakm_can_migrate() returned in the kernel: served
 * back to the policy) and the RET record (the CPU or task it returned).
 *
 * Calls on different CPUs interleave in a recording: a call's records are
 * those with its on_cpu (the emitting CPU) after its CALL, up to its RET.
 * Each call is replayed whole when its CALL comes, which is what the rq
 * locks make the kernel's execution equivalent to.
 *
 * Exit: 0 match, 1 divergence (printed with the records before it), 2
 * usage or I/O error, 3 the recording lost records and everything before
 * the first gap matched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "saakm_rec.h"
#include "usim.h"

#define NONE ((size_t)-1)

enum outcome { MATCH, DIVERGED, INCOMPLETE };

struct replay {
	struct saakm_recording rec;
	struct saakm_policy *pol;
	size_t limit;		/* records before the first gap */
	size_t *next_same;	/* next record with the same on_cpu, or NONE */
	unsigned char *done;	/* consumed as the output of a call */
	int last_n, verbose;
	uint64_t t0;
	/* the call being replayed */
	size_t call;		/* its CALL record */
	size_t next;		/* the next record it should produce */
	enum outcome outcome;
	size_t bad;		/* the record that did not match */
	char got[256];		/* what the policy did instead */
	char note[256];		/* why, when it is not just "different" */
	/* counters */
	int *last_src;		/* by on_cpu: the CPU newly_idle/balancing_select named */
	size_t calls, orphans, unattached, cut, src_guessed;
	bool in_cut;		/* the recording stopped during this call */
};

static struct replay R;

/* Stop at record @j: the policy did @fmt instead. */
static void diverge(size_t j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diverge(size_t j, const char *fmt, ...)
{
	va_list ap;

	if (R.outcome != MATCH)
		return;
	R.outcome = DIVERGED;
	R.bad = j;
	va_start(ap, fmt);
	vsnprintf(R.got, sizeof(R.got), fmt, ap);
	va_end(ap);
}

/*
 * The record the call should produce now, or NULL: the recording stopped
 * during the call (its CPU has no record after it; nothing to check), or
 * lost records (incomplete).
 */
static const struct saakm_rec *expected(void)
{
	if (R.in_cut)
		return NULL;
	if (R.next == NONE && R.limit == R.rec.nr) {
		R.in_cut = true;
		R.cut++;
		return NULL;
	}
	if (R.next == NONE || R.next >= R.limit) {
		if (R.outcome == MATCH) {
			R.outcome = INCOMPLETE;
			R.bad = R.call;
		}
		return NULL;
	}
	return &R.rec.recs[R.next];
}

static void consume(void)
{
	R.done[R.next] = 1;
	R.next = R.next_same[R.next];
}

static void on_state(void *ctx, struct task_struct *p, int from, int to, int cpu, int rq_cpu)
{
	const struct saakm_rec *e;
	int pid = usim_task_pid(p);

	(void)ctx;
	if (R.outcome != MATCH || !(e = expected()))
		return;
	if (e->kind != SAAKM_REC_STATE || e->pid != pid || e->a != to || (int64_t)e->c != from ||
	    e->cpu != cpu || e->b != rq_cpu) {
		diverge(R.next, "STATE pid %d %s -> %s cpu %d rq %d", pid, usim_state_name(from),
			usim_state_name(to), cpu, rq_cpu);
		return;
	}
	consume();
}

static int on_input(void *ctx, int which, struct task_struct *p, int dst, unsigned long long *val)
{
	const struct saakm_rec *e;
	int pid = usim_task_pid(p);

	(void)ctx;
	if (R.outcome != MATCH || !(e = expected()))
		return 0;
	if (e->kind != SAAKM_REC_INPUT || e->ev != which || e->pid != pid ||
	    (which == SAAKM_INPUT_CAN_MIGRATE && e->a != dst)) {
		if (which == SAAKM_INPUT_CAN_MIGRATE)
			diverge(R.next, "INPUT can_migrate pid %d dst %d (asked)", pid, dst);
		else
			diverge(R.next, "INPUT %s pid %d (asked)", saakm_input_names[which & 1], pid);
		return 0;
	}
	*val = e->c;
	consume();
	return 1;
}

static void on_error(void *ctx, const char *msg)
{
	const struct saakm_rec *e;

	(void)ctx;
	if (R.outcome != MATCH || !(e = expected()))
		return;
	if (e->kind == SAAKM_REC_ERROR) {
		consume();
		return;
	}
	diverge(R.next, "policy error: %s", msg);
}

/* Load the policy as the recorded machine had it. Return: 0 or exit status 2. */
static int load_policy(void)
{
	const struct usim_hooks hooks = { .state = on_state, .input = on_input, .error = on_error };
	const struct saakm_rec_header *h = &R.rec.hdr;
	int err;

	if (h->nr_cpus > USIM_MAX_CPUS) {
		fprintf(stderr, "saakm replay: the recording has %u CPUs, replay supports %d\n",
			h->nr_cpus, USIM_MAX_CPUS);
		return 2;
	}
	if (usim_setup(h->nr_cpus, &hooks) || usim_set_params(h->params)) {
		fprintf(stderr, "saakm replay: the recorded parameters '%s' do not apply to this policy\n",
			h->params);
		return 2;
	}
	err = usim_load();
	if (err) {
		fprintf(stderr, "saakm replay: module_init failed: %s\n", strerror(-err));
		return 2;
	}
	R.pol = usim_policy(h->policy);
	if (!R.pol) {
		struct saakm_policy *any = usim_policy(NULL);

		fprintf(stderr, "saakm replay: the recording is of policy '%s'; this source registers %s%s%s\n",
			h->policy, any ? "'" : "none", any ? usim_policy_name(any) : "", any ? "'" : "");
		return 2;
	}
	return 0;
}

/* Index the recording: where the first gap is, and each CPU's next record. */
static int index_records(void)
{
	size_t *last, nr = R.rec.nr, i;
	unsigned int cpus = R.rec.hdr.nr_cpus;

	R.limit = nr;
	for (i = 0; i < nr; i++)
		if (R.rec.recs[i].seq != i + 1) {
			R.limit = i;
			break;
		}
	R.next_same = malloc((nr + 1) * sizeof(*R.next_same));
	R.done = calloc(nr + 1, 1);
	last = malloc(cpus * sizeof(*last));
	R.last_src = malloc(cpus * sizeof(*R.last_src));
	if (!R.next_same || !R.done || !last || !R.last_src)
		return -ENOMEM;
	for (unsigned int c = 0; c < cpus; c++)
		R.last_src[c] = -1;
	for (unsigned int c = 0; c < cpus; c++)
		last[c] = NONE;
	for (i = nr; i-- > 0;) {
		R.next_same[i] = last[R.rec.recs[i].on_cpu];
		last[R.rec.recs[i].on_cpu] = i;
	}
	free(last);
	return 0;
}

/* A task call of the recording whose task replay has not seen join. */
static void attach_unknown(struct task_struct *p, int ev)
{
	if (usim_task_policy(p) == R.pol || ev == SAAKM_EV_NEW_PREPARE)
		return;
	/* it joined before the recording started: its past is unknown */
	if (!R.unattached++)
		fprintf(stderr, "saakm replay: warning: task %d joined before the recording started: replay may diverge (record from the start: saakm record -- CMD)\n",
			usim_task_pid(p));
	usim_attach(p, R.pol, ev == SAAKM_EV_UNBLOCK_PREPARE || ev == SAAKM_EV_UNBLOCK_PLACE ?
			      SAAKM_ST_BLOCKED : SAAKM_ST_RUNNING);
}

/*
 * The source CPU of a balance_pick CALL. Kernels of 2026-11-22 (the first
 * recorder) record dst as the CALL's cpu too; src is then the CPU the
 * newly_idle() or balancing_select() before it on the same CPU named.
 */
static int balance_src(const struct saakm_rec *r)
{
	int src = R.last_src[r->on_cpu];

	if (r->cpu != r->a || src < 0 || src == r->a)
		return r->cpu;
	R.src_guessed++;
	return src;
}

/* Remember what newly_idle/balancing_select returned on this CPU. */
static void note_src(const struct saakm_rec *call, long ret)
{
	if (call->ev == SAAKM_EV_NEWLY_IDLE || call->ev == SAAKM_EV_BALANCING_SELECT)
		R.last_src[call->on_cpu] = ret;
}

/* Make the call of CALL record @i again and check its RET. */
static void replay_call(size_t i)
{
	const struct saakm_rec *r = &R.rec.recs[i], *e;
	struct task_struct *p = NULL;
	int cpu = r->cpu;
	long ret;

	if (r->pid >= 0 && saakm_ev_has_task(r->ev)) {
		p = usim_task(r->pid);
		attach_unknown(p, r->ev);
		if (r->c)
			usim_set_affinity(p, r->c);
		usim_set_nice(p, r->b);
		/*
		 * The task is on the CPU of the call: task callbacks without a
		 * CPU argument record task_cpu(p), and the others run with
		 * the task on their CPU (placed there, or running there).
		 */
		if (r->cpu >= 0)
			usim_set_task_cpu(p, r->cpu);
	}
	R.call = i;
	R.next = R.next_same[i];
	R.in_cut = false;
	R.calls++;
	usim_set_now_ns(r->ts_ns - R.t0);
	/* hotplug: the policy sees the CPU online from core_entry to core_exit */
	if (r->ev == SAAKM_EV_CORE_ENTRY && r->cpu >= 0)
		usim_set_cpu_online(r->cpu, 1);
	if (r->ev == SAAKM_EV_BALANCE_PICK)
		cpu = balance_src(r);
	ret = usim_call(R.pol, r->ev, cpu, p, r->a);
	note_src(r, ret);
	if (r->ev == SAAKM_EV_CORE_EXIT && r->cpu >= 0)
		usim_set_cpu_online(r->cpu, 0);
	if (R.outcome != MATCH || !(e = expected()))
		return;
	if (e->kind != SAAKM_REC_RET) {
		diverge(R.next, "the callback returned%s", e->kind == SAAKM_REC_STATE ?
			" without this state change" : "");
		return;
	}
	if (e->ev != r->ev) {
		snprintf(R.note, sizeof(R.note), "corrupt recording: RET of %s after CALL of %s",
			 saakm_rec_event_name(e->ev), saakm_rec_event_name(r->ev));
		diverge(R.next, "RET %s", saakm_rec_event_name(r->ev));
		return;
	}
	if (saakm_ev_returns(r->ev) != SAAKM_RET_VOID && e->a != ret) {
		struct saakm_rec got = *e;

		got.a = ret;
		saakm_rec_format(&got, R.got, sizeof(R.got));
		R.outcome = DIVERGED;
		R.bad = R.next;
		return;
	}
	consume();
}

/* The class's own move of a task (FORCE record @i). */
static void replay_force(const struct saakm_rec *r)
{
	struct task_struct *p = usim_task(r->pid);

	if (usim_task_policy(p) != R.pol)
		usim_attach(p, R.pol, (int)r->c);
	if (r->cpu >= 0)
		usim_set_task_cpu(p, r->cpu);
	usim_set_now_ns(r->ts_ns - R.t0);
	usim_force_state(p, r->a);
}

/* Replay records [0, limit). Return: the outcome. */
static enum outcome replay_all(void)
{
	for (size_t i = 0; i < R.limit && R.outcome == MATCH; i++) {
		const struct saakm_rec *r = &R.rec.recs[i];

		if (R.done[i])
			continue;
		switch (r->kind) {
		case SAAKM_REC_CALL:
			replay_call(i);
			break;
		case SAAKM_REC_FORCE:
			replay_force(r);
			break;
		case SAAKM_REC_ERROR:
			printf("saakm replay: the kernel ejected the policy at seq %llu (not in a call: a stall?); nothing after it was recorded\n",
			       (unsigned long long)r->seq);
			return R.outcome;
		default:
			/* the output of a call that started before the recording */
			R.orphans++;
		}
		if (R.verbose && r->kind == SAAKM_REC_CALL) {
			char line[160];

			printf("  %llu [%u] %s\n", (unsigned long long)r->seq, r->on_cpu,
			       saakm_rec_format(r, line, sizeof(line)));
		}
	}
	if (R.outcome == MATCH && R.limit < R.rec.nr) {
		R.outcome = INCOMPLETE;
		R.bad = R.limit;
	}
	return R.outcome;
}

static void print_rec(const char *prefix, size_t i)
{
	const struct saakm_rec *r = &R.rec.recs[i];
	char line[160];

	printf("%s%10llu  %14.6f  [cpu %u]  %s\n", prefix, (unsigned long long)r->seq,
	       (r->ts_ns - R.t0) / 1e9, r->on_cpu, saakm_rec_format(r, line, sizeof(line)));
}

static void report_divergence(void)
{
	const struct saakm_rec *c = &R.rec.recs[R.call], *e = &R.rec.recs[R.bad];
	char line[160];
	size_t from = R.bad > (size_t)R.last_n ? R.bad - R.last_n : 0;

	printf("saakm replay: DIVERGENCE at record %llu (seq %llu), cpu %d, task %d\n",
	       (unsigned long long)R.bad + 1, (unsigned long long)e->seq,
	       c->cpu, e->pid >= 0 ? e->pid : c->pid);
	printf("  in call:  %s (seq %llu, on cpu %u)\n", saakm_rec_format(c, line, sizeof(line)),
	       (unsigned long long)c->seq, c->on_cpu);
	printf("  expected: %s\n", saakm_rec_format(e, line, sizeof(line)));
	printf("  got:      %s\n", R.got);
	if (R.note[0])
		printf("  note:     %s\n", R.note);
	printf("the %zu records before it (seq, seconds, emitting cpu, record):\n", R.bad - from);
	for (size_t i = from; i < R.bad; i++)
		print_rec(i == R.call ? "> " : "  ", i);
	print_rec("! ", R.bad);
}

static int usage(void)
{
	fprintf(stderr, "usage: ENGINE FILE [--last N] [-v]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *file = NULL;
	struct timespec a, b;
	char err[512];
	double secs;
	int ret;

	R.last_n = 10;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			R.verbose = 1;
		else if (!strcmp(argv[i], "--last") && i + 1 < argc)
			R.last_n = atoi(argv[++i]);
		else if (!file && argv[i][0] != '-')
			file = argv[i];
		else
			return usage();
	}
	if (!file || R.last_n < 0)
		return usage();
	if (saakm_rec_read(file, &R.rec, err, sizeof(err))) {
		fprintf(stderr, "saakm replay: %s\n", err);
		return 2;
	}
	usim_set_quiet(!R.verbose);
	if ((ret = load_policy()) || index_records()) {
		return ret ? ret : 2;
	}
	R.t0 = R.rec.nr ? R.rec.recs[0].ts_ns : 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	replay_all();
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	if (R.src_guessed)
		fprintf(stderr, "saakm replay: note: %zu balance_pick calls recorded without their source CPU (an early recorder): took it from the newly_idle/balancing_select before them\n",
			R.src_guessed);
	if (R.orphans)
		fprintf(stderr, "saakm replay: note: %zu records of calls that began before the recording were skipped\n",
			R.orphans);
	switch (R.outcome) {
	case DIVERGED:
		report_divergence();
		return 1;
	case INCOMPLETE:
		printf("saakm replay: %s: the first %zu records match (%zu calls); the recording is incomplete after seq %llu (%llu records lost): not checked further\n",
		       R.rec.hdr.policy, R.bad, R.calls,
		       (unsigned long long)(R.bad ? R.rec.recs[R.bad - 1].seq : 0),
		       (unsigned long long)R.rec.hdr.lost);
		return 3;
	default:
		printf("saakm replay: %s: all %zu records match (%zu calls) in %.3f s (%.0f records/s)\n",
		       R.rec.hdr.policy, R.limit, R.calls, secs, secs > 0 ? R.limit / secs : 0.0);
		return 0;
	}
}
