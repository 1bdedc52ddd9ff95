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
 * saakm_running_ns() / saakm_exec_ns() / saakm_can_migrate() returned in
 * the kernel, and what saakm_read_cpu() read of another CPU's state: served
 * back to the policy) and the RET record (the CPU or task it returned).
 *
 * Calls on different CPUs interleave in a recording: a call's records are
 * those with its on_cpu (the emitting CPU) after its CALL, up to its RET.
 * A call whose records are not interleaved with others runs whole when its
 * CALL comes. Otherwise it runs on a coroutine of its CPU (ucontext) that
 * waits, before each of its effects (a state change, an input), until the
 * walk reaches that effect's record: the calls of other CPUs in between run
 * first and see the world as it was then. That is what happened in the
 * kernel for what the rq locks order. A policy's unlocked reads of another
 * CPU's state go through saakm_read_cpu() and are served from their INPUT
 * records; in recordings without them (kernels before 2026-11-23) the read
 * sees the replayed world, as the kernel did when it came right after the
 * previous record of its call.
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
#include <ucontext.h>
#include "saakm_rec.h"
#include "usim.h"

#define NONE ((size_t)-1)

enum outcome { MATCH, DIVERGED, INCOMPLETE };

/* A call being replayed: on the main stack, or on its CPU's coroutine. */
struct call_ctx {
	size_t call;		/* its CALL record */
	size_t next;		/* the next record it should produce */
	size_t wait;		/* suspended until the walk reaches this record */
	bool in_cut;		/* the recording stopped during this call */
	bool coroutine;		/* runs on @uc, may wait */
	bool active;		/* started, not returned */
	ucontext_t uc;
	struct usim_call_state cs;	/* usim's callback context while away */
	void *stack;
};

#define CO_STACK	(256 * 1024)

struct replay {
	struct saakm_recording rec;
	struct saakm_policy *pol;
	size_t limit;		/* records before the first gap */
	size_t *next_same;	/* next record with the same on_cpu, or NONE */
	unsigned char *done;	/* consumed as the output of a call */
	int last_n, verbose;
	uint64_t t0;
	/* calls being replayed */
	struct call_ctx direct;	/* on the main stack */
	struct call_ctx *co;	/* by CPU: its coroutine */
	struct call_ctx *cur;	/* the one running */
	ucontext_t main_uc;
	struct usim_call_state main_cs;
	size_t pos;		/* the record the walk is at */
	enum outcome outcome;
	size_t bad;		/* the record that did not match */
	size_t bad_call;	/* the CALL of the call it belongs to */
	char got[256];		/* what the policy did instead */
	char note[256];		/* why, when it is not just "different" */
	/* counters */
	int *last_src;		/* by on_cpu: the CPU newly_idle/balancing_select named */
	size_t *query;		/* by on_cpu: a query call to try again, or NONE */
	bool retrying;		/* calling a query again */
	bool last_try;		/* ... at its RET: no more after this */
	size_t calls, orphans, unattached, cut, src_guessed, waits, retried, reads_unrecorded;
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
	R.bad_call = R.cur->call;
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
	struct call_ctx *c = R.cur;

	if (c->in_cut)
		return NULL;
	if (c->next == NONE && R.limit == R.rec.nr) {
		c->in_cut = true;
		R.cut++;
		return NULL;
	}
	if (c->next == NONE || c->next >= R.limit) {
		if (R.outcome == MATCH) {
			R.outcome = INCOMPLETE;
			R.bad = R.bad_call = c->call;
		}
		return NULL;
	}
	return &R.rec.recs[c->next];
}

static void consume(void)
{
	R.done[R.cur->next] = 1;
	R.cur->next = R.next_same[R.cur->next];
}

/*
 * Before an effect of kind @kind (-1: any): a call on a coroutine waits
 * until the walk reaches the record of that effect (if it is the one
 * expected; a different one is reported by the hook after it).
 */
static void wait_turn(int kind)
{
	struct call_ctx *c = R.cur;
	const struct saakm_rec *e;

	if (!c->coroutine || !c->active || R.outcome != MATCH || c->in_cut || c->next == NONE ||
	    c->next >= R.limit)
		return;
	e = &R.rec.recs[c->next];
	if ((kind >= 0 && e->kind != kind) || c->next <= R.pos)
		return;
	c->wait = c->next;
	R.waits++;
	/* usim has one callback context (the kernel one per CPU): keep ours */
	usim_call_state_save(&c->cs);
	swapcontext(&c->uc, &R.main_uc);
	/* resumed by the walk at c->next */
	usim_call_state_restore(&c->cs);
}

/* From the walk into call @c's coroutine, until it waits or returns. */
static void switch_to(struct call_ctx *c)
{
	R.cur = c;
	usim_call_state_save(&R.main_cs);
	swapcontext(&R.main_uc, &c->uc);
	usim_call_state_restore(&R.main_cs);
}

/*
 * The policy's saakm_change_state() (the program is linked with
 * --wrap=saakm_change_state): wait for its turn, then the real one, which
 * validates, applies and calls on_state().
 */
struct saakm_rq;
void __real_saakm_change_state(struct task_struct *p, int state, int cpu, struct saakm_rq *rq);
void __wrap_saakm_change_state(struct task_struct *p, int state, int cpu, struct saakm_rq *rq);
void __wrap_saakm_change_state(struct task_struct *p, int state, int cpu, struct saakm_rq *rq)
{
	wait_turn(SAAKM_REC_STATE);
	__real_saakm_change_state(p, state, cpu, rq);
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
		diverge(R.cur->next, "STATE pid %d %s -> %s cpu %d rq %d", pid, usim_state_name(from),
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
	wait_turn(SAAKM_REC_INPUT);
	if (R.outcome != MATCH || !(e = expected()))
		return 0;
	if (which == SAAKM_INPUT_READ_CPU && (e->kind != SAAKM_REC_INPUT || e->ev != which)) {
		/* a recording of a kernel without saakm_read_cpu(): the replayed world's value */
		R.reads_unrecorded++;
		return 0;
	}
	if (e->kind != SAAKM_REC_INPUT || e->ev != which || e->pid != pid ||
	    ((which == SAAKM_INPUT_CAN_MIGRATE || which == SAAKM_INPUT_READ_CPU) && e->a != dst)) {
		if (which == SAAKM_INPUT_CAN_MIGRATE)
			diverge(R.cur->next, "INPUT can_migrate pid %d dst %d (asked)", pid, dst);
		else if (which == SAAKM_INPUT_READ_CPU)
			diverge(R.cur->next, "INPUT read_cpu cpu %d (asked)", dst);
		else
			diverge(R.cur->next, "INPUT %s pid %d (asked)", saakm_input_name(which), pid);
		return 0;
	}
	*val = e->c;
	consume();
	return 1;
}

/*
 * The policy takes a lock of its own: on a coroutine, wait until the walk
 * reaches the call's next record. In the kernel the lock was taken before
 * that record, and after the records other CPUs made holding it that come
 * before it: so what the policy reads under its lock is what the kernel
 * read, and a call never waits for its turn while another holds the lock.
 */
static void on_lock(void *ctx)
{
	(void)ctx;
	wait_turn(-1);
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
	diverge(R.cur->next, "policy error: %s", msg);
}

/* Load the policy as the recorded machine had it. Return: 0 or exit status 2. */
static int load_policy(void)
{
	const struct usim_hooks hooks = { .state = on_state, .input = on_input, .error = on_error,
					  .lock = on_lock };
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
	R.co = calloc(cpus, sizeof(*R.co));
	R.query = malloc(cpus * sizeof(*R.query));
	if (!R.next_same || !R.done || !last || !R.last_src || !R.co || !R.query)
		return -ENOMEM;
	for (unsigned int c = 0; c < cpus; c++)
		R.query[c] = NONE;
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

static bool is_query(const struct call_ctx *c);

/* The body of a call, in R.cur: the callback, then its RET checked. */
static void run_call(void)
{
	struct call_ctx *c = R.cur;
	const struct saakm_rec *r = &R.rec.recs[c->call], *e;
	struct task_struct *p = r->pid >= 0 && saakm_ev_has_task(r->ev) ? usim_task(r->pid) : NULL;
	int cpu = r->ev == SAAKM_EV_BALANCE_PICK ? balance_src(r) : r->cpu;
	char got[160];
	long ret;

	ret = usim_call(R.pol, r->ev, cpu, p, r->a);
	note_src(r, ret);
	if (r->ev == SAAKM_EV_CORE_EXIT && r->cpu >= 0)
		usim_set_cpu_online(r->cpu, 0);
	if (R.outcome != MATCH || !(e = expected()))
		return;
	if (e->kind != SAAKM_REC_RET) {
		diverge(c->next, "the callback returned%s", e->kind == SAAKM_REC_STATE ?
			" without this state change" : "");
		return;
	}
	if (e->ev != r->ev) {
		snprintf(R.note, sizeof(R.note), "corrupt recording: RET of %s after CALL of %s",
			 saakm_rec_event_name(e->ev), saakm_rec_event_name(r->ev));
		diverge(c->next, "RET %s", saakm_rec_event_name(r->ev));
		return;
	}
	if (saakm_ev_returns(r->ev) != SAAKM_RET_VOID && e->a != ret) {
		struct saakm_rec as_got = *e;

		as_got.a = ret;
		saakm_rec_format(&as_got, got, sizeof(got));
		if (is_query(c) && !R.last_try && (R.retrying || c->next > R.pos + 1)) {
			/* maybe it read another CPU's state later: try again as the walk goes on */
			R.query[r->on_cpu] = c->call;
			snprintf(R.got, sizeof(R.got), "%s", got);
			return;
		}
		diverge(c->next, "%s", got);
		return;
	}
	if (R.retrying)
		R.retried++;
	consume();
}

/*
 * A call that only answers (new_prepare, newly_idle, ...: no state change,
 * no input before its RET) and whose RET comes after other CPUs' records:
 * the policy may have read their state (unlocked) anywhere in between.
 */
static bool is_query(const struct call_ctx *c)
{
	return R.next_same[c->call] == c->next;
}

/* A coroutine's body: one call; returning resumes the walk (uc_link). */
static void co_main(void)
{
	run_call();
	R.cur->active = false;
}

/* Are call @i's records each right after the previous one (none of another CPU between)? */
static bool contiguous(size_t i)
{
	for (size_t k = i, n;; k = n) {
		n = R.next_same[k];
		if (n == NONE || R.rec.recs[n].kind == SAAKM_REC_CALL)
			return true;
		if (n != k + 1)
			return false;
		if (R.rec.recs[n].kind == SAAKM_REC_RET)
			return true;
	}
}

/* Set up what the kernel had for the call of CALL record @r: task CPU, nice, affinity. */
static void call_setup(const struct saakm_rec *r)
{
	struct task_struct *p;

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
	usim_set_now_ns(r->ts_ns - R.t0);
	/* hotplug: the policy sees the CPU online from core_entry to core_exit */
	if (r->ev == SAAKM_EV_CORE_ENTRY && r->cpu >= 0)
		usim_set_cpu_online(r->cpu, 1);
}

/* Start the call of CALL record @i: whole, or on its CPU's coroutine until it waits. */
static void replay_call(size_t i)
{
	const struct saakm_rec *r = &R.rec.recs[i];
	struct call_ctx *c = &R.direct;

	if (!contiguous(i)) {
		c = &R.co[r->on_cpu];
		if (c->active) {
			R.cur = c;
			diverge(i, "a call on cpu %u before the previous one returned", r->on_cpu);
			return;
		}
		if (!c->stack && !(c->stack = malloc(CO_STACK))) {
			fprintf(stderr, "saakm replay: out of memory\n");
			exit(2);
		}
	}
	call_setup(r);
	R.calls++;
	c->call = i;
	c->next = R.next_same[i];
	c->wait = NONE;
	c->in_cut = false;
	c->coroutine = c != &R.direct;
	c->active = true;
	R.cur = c;
	if (!c->coroutine) {
		run_call();
		c->active = false;
		return;
	}
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = c->stack;
	c->uc.uc_stack.ss_size = CO_STACK;
	c->uc.uc_link = &R.main_uc;
	makecontext(&c->uc, co_main, 0);
	switch_to(c);
}

/* The walk reached the record call @c waits for: let it go on. */
static void resume(struct call_ctx *c)
{
	c->wait = NONE;
	switch_to(c);
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

/*
 * Before record @i: call again the query calls whose answer differed, now
 * that more of the other CPUs' records were applied; at their RET, give up.
 * Queries have no state change to undo; a policy that keeps private state
 * in one sees it called more than once (only where replay would otherwise
 * report a divergence).
 */
static void retry_queries(size_t i)
{
	for (unsigned int cpu = 0; cpu < R.rec.hdr.nr_cpus && R.outcome == MATCH; cpu++) {
		struct call_ctx *c = &R.direct;
		size_t q = R.query[cpu];

		if (q == NONE)
			continue;
		R.query[cpu] = NONE;
		c->call = q;
		c->next = R.next_same[q];
		c->in_cut = false;
		c->coroutine = false;
		R.cur = c;
		/* at its RET: a last try, then it is a divergence */
		R.last_try = c->next == i;
		R.retrying = true;
		call_setup(&R.rec.recs[q]);
		run_call();
		R.retrying = R.last_try = false;
	}
}

/* Replay records [0, limit). Return: the outcome. */
static enum outcome replay_all(void)
{
	for (size_t i = 0; i < R.limit && R.outcome == MATCH; i++) {
		const struct saakm_rec *r = &R.rec.recs[i];
		struct call_ctx *c = &R.co[r->on_cpu];

		R.pos = i;
		retry_queries(i);
		if (R.outcome != MATCH)
			break;
		R.pos = i;
		if (c->active && c->wait == i) {
			resume(c);
			continue;
		}
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
	const struct saakm_rec *c = &R.rec.recs[R.bad_call], *e = &R.rec.recs[R.bad];
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
		print_rec(i == R.bad_call ? "> " : "  ", i);
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
	/* no call yet: what the policy does while loading is not checked */
	R.direct.in_cut = true;
	R.cur = &R.direct;
	if ((ret = load_policy()) || index_records()) {
		return ret ? ret : 2;
	}
	R.t0 = R.rec.nr ? R.rec.recs[0].ts_ns : 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	replay_all();
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	if (R.retried)
		fprintf(stderr, "saakm replay: note: %zu calls answered as recorded only when called again later in their call (they read another CPU's state while it changed)\n",
			R.retried);
	if (R.reads_unrecorded)
		fprintf(stderr, "saakm replay: note: %zu reads of another CPU's state (saakm_read_cpu()) have no INPUT record (a kernel without it recorded this): they saw the replayed world\n",
			R.reads_unrecorded);
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
