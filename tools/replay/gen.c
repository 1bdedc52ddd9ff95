// SPDX-License-Identifier: GPL-2.0
/*
 * gen: write a synthetic recording of a policy, for the replay tests and
 * the replay speed measurement, without a kernel. Compiled (like the
 * replay engine) with the policy's source and libusim:
 *	gen OUT.rec [-n RECORDS] [-c CPUS] [-t TASKS] [-s SEED] [-P PARAMS] [-i] [-k]
 *
 * A small model of the class core drives the policy through usim_call()
 * with a seeded random workload: tasks fork, run, tick, yield, block, wake
 * up (with random nice values and affinities) and exit; idle CPUs call
 * schedule(), newly_idle() and balance_pick() as the kernel does. Every
 * call and what the policy did is recorded as the kernel's recorder would
 * (CALL, STATE, INPUT, RET, and FORCE for the class's own moves).
 *
 * -i interleaves the records of calls on different CPUs, as in a real
 * recording (records of one call keep their order, CALLs theirs), so the
 * replay's matching by emitting CPU and its coroutines are exercised.
 *
 * -k makes every other tick of a running task a preempt() call instead (a
 * saakm_kick_cpu(..., SAAKM_KICK_PREEMPT) from a policy's hrtimer): the
 * kernel records it as a PREEMPT call, which runs the policy's tick() when
 * it has no preempt(). The random sequence is the same with or without.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "saakm_rec.h"
#include "usim.h"

#define TICK_NS	4000000ULL	/* HZ=250 */

struct gen {
	struct saakm_policy *pol;
	struct saakm_recording rec;
	int nr_cpus, max_tasks, alive, next_pid, on_cpu, preempt;
	int curr[USIM_MAX_CPUS];	/* running pid, -1: idle */
	int ready[USIM_MAX_CPUS];	/* READY tasks queued there */
	int *rq_of;			/* by pid: the rq cpu it is queued in, -1 */
	int rq_of_len;
	int *pids;			/* live tasks */
	unsigned long long seed;
	uint64_t seq;
};

static struct gen G;

static unsigned int rnd(unsigned int n)
{
	/* xorshift64*: the same sequence on every machine for a seed */
	G.seed ^= G.seed >> 12;
	G.seed ^= G.seed << 25;
	G.seed ^= G.seed >> 27;
	return (unsigned int)((G.seed * 0x2545f4914f6cdd1dULL) >> 33) % n;
}

static void push(struct saakm_rec r)
{
	r.seq = ++G.seq;
	r.ts_ns = 1000000000ULL + usim_now_ns() + G.seq;
	r.on_cpu = G.on_cpu;
	if (saakm_rec_push(&G.rec, &r)) {
		fprintf(stderr, "gen: out of memory\n");
		exit(1);
	}
}

static bool is_ready(int s)
{
	return s == SAAKM_ST_READY || s == SAAKM_ST_READY_TICK;
}

/*
 * The queue counts follow the states, so that schedule() is called when it
 * must be: @pid left its runqueue if it was READY, and joins @rq_cpu's if
 * it becomes READY (per-CPU runqueues only).
 */
static void account(int pid, int from, int to, int rq_cpu)
{
	int *rq = &G.rq_of[pid];

	if (is_ready(from) && *rq >= 0)
		G.ready[*rq]--;
	*rq = -1;
	if (is_ready(to) && rq_cpu >= 0) {
		*rq = rq_cpu;
		G.ready[rq_cpu]++;
	}
}

static void on_state(void *ctx, struct task_struct *p, int from, int to, int cpu, int rq_cpu)
{
	int pid = usim_task_pid(p);

	(void)ctx;
	push((struct saakm_rec){ .kind = SAAKM_REC_STATE, .cpu = cpu, .pid = pid, .a = to,
				 .b = rq_cpu, .c = from });
	account(pid, from, to, rq_cpu);
}

static int on_input(void *ctx, int which, struct task_struct *p, int dst, unsigned long long *val)
{
	(void)ctx;
	push((struct saakm_rec){ .kind = SAAKM_REC_INPUT, .ev = which, .cpu = -1,
				 .pid = usim_task_pid(p), .a = dst, .b = -1, .c = *val });
	return 0;
}

static void on_error(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "gen: the policy failed (seed %llu): %s\n", G.seed, msg);
	exit(1);
}

/* Call @ev as the class would, on CPU @on, and record it. */
static long call(int ev, int cpu, struct task_struct *p, int a, int on)
{
	struct saakm_rec r = { .kind = SAAKM_REC_CALL, .ev = ev, .cpu = cpu, .pid = -1, .a = -1, .b = -1 };
	long ret;

	if (p) {
		r.pid = usim_task_pid(p);
		r.b = usim_task_nice(p);
		r.c = usim_task_affinity(p);
		if (!saakm_ev_has_cpu(ev))
			r.cpu = cpu = usim_task_cpu(p);
	}
	if (ev == SAAKM_EV_BALANCE_PICK)
		r.a = a;
	G.on_cpu = on;
	push(r);
	ret = usim_call(G.pol, ev, cpu, p, a);
	push((struct saakm_rec){ .kind = SAAKM_REC_RET, .ev = ev, .cpu = r.cpu, .pid = r.pid,
				 .a = saakm_ev_returns(ev) == SAAKM_RET_VOID ? 0 : ret, .b = -1 });
	return ret;
}

/* The class's own move of @p (recorded as FORCE). */
static void force(struct task_struct *p, int state)
{
	int pid = usim_task_pid(p), from = usim_task_state(p);

	G.on_cpu = usim_task_cpu(p);
	push((struct saakm_rec){ .kind = SAAKM_REC_FORCE, .cpu = usim_task_cpu(p), .pid = pid,
				 .a = state, .b = -1, .c = from });
	usim_force_state(p, state);
	/* READY_TICK -> READY stays queued (a relabel); anything else leaves the queue */
	if (!(is_ready(from) && is_ready(state)))
		account(pid, from, state, -1);
}

/* An idle CPU: pull with newly_idle/balance_pick if empty, then pick. */
static void kick(int cpu)
{
	struct task_struct *p;
	long src, pid;

	if (G.curr[cpu] >= 0)
		return;
	if (!G.ready[cpu] && usim_has_callback(G.pol, SAAKM_EV_NEWLY_IDLE)) {
		src = call(SAAKM_EV_NEWLY_IDLE, cpu, NULL, 0, cpu);
		if (src >= 0 && src != cpu && src < G.nr_cpus) {
			pid = call(SAAKM_EV_BALANCE_PICK, src, NULL, cpu, cpu);
			if (pid >= 0) {
				p = usim_task(pid);
				usim_set_task_cpu(p, cpu);
				call(SAAKM_EV_UNBLOCK_PLACE, cpu, p, 0, cpu);
			}
		}
	}
	if (!G.ready[cpu])
		return;
	pid = call(SAAKM_EV_SCHEDULE, cpu, NULL, 0, cpu);
	if (pid >= 0) {
		G.curr[cpu] = pid;
		usim_set_task_cpu(usim_task(pid), cpu);
	}
}

static unsigned long long random_affinity(void)
{
	unsigned long long all = G.nr_cpus == 64 ? ~0ULL : (1ULL << G.nr_cpus) - 1, m;

	if (rnd(4))
		return all;
	do
		m = ((unsigned long long)rnd(1u << 30) << 30 | rnd(1u << 30)) & all;
	while (!m);
	return m;
}

static void spawn(void)
{
	int pid = G.next_pid++, cpu;
	struct task_struct *p = usim_task(pid);

	usim_set_task_cpu(p, rnd(G.nr_cpus));
	usim_set_affinity(p, random_affinity());
	usim_set_nice(p, (int)rnd(11) - 5);
	if (pid >= G.rq_of_len) {
		G.rq_of_len = 2 * pid;
		G.rq_of = realloc(G.rq_of, G.rq_of_len * sizeof(*G.rq_of));
		if (!G.rq_of)
			exit(1);
	}
	G.rq_of[pid] = -1;
	/* the kernel's saakm_attach() records the join as a FORCE */
	G.on_cpu = usim_task_cpu(p);
	push((struct saakm_rec){ .kind = SAAKM_REC_FORCE, .cpu = usim_task_cpu(p), .pid = pid,
				 .a = SAAKM_ST_NOT_QUEUED, .b = -1, .c = SAAKM_ST_NOT_QUEUED });
	usim_attach(p, G.pol, SAAKM_ST_NOT_QUEUED);
	cpu = call(SAAKM_EV_NEW_PREPARE, 0, p, 0, usim_task_cpu(p));
	usim_set_task_cpu(p, cpu);
	call(SAAKM_EV_NEW_PLACE, cpu, p, 0, cpu);
	G.pids[G.alive++] = pid;
	kick(cpu);
}

static void wake(struct task_struct *p)
{
	int cpu = call(SAAKM_EV_UNBLOCK_PREPARE, 0, p, 0, rnd(G.nr_cpus));

	usim_set_task_cpu(p, cpu);
	call(SAAKM_EV_UNBLOCK_PLACE, cpu, p, 0, cpu);
	kick(cpu);
}

static void leave(int cpu)
{
	G.curr[cpu] = -1;
	kick(cpu);
}

static void exit_task(int cpu, struct task_struct *p)
{
	int pid = usim_task_pid(p);

	call(SAAKM_EV_TERMINATE, cpu, p, 0, cpu);
	call(SAAKM_EV_FREE_METADATA, cpu, p, 0, cpu);
	for (int i = 0; i < G.alive; i++)
		if (G.pids[i] == pid)
			G.pids[i] = G.pids[--G.alive];
	leave(cpu);
}

/* What the task running on @cpu does next. */
static void step_running(int cpu)
{
	struct task_struct *p = usim_task(G.curr[cpu]);
	unsigned int what = rnd(100);

	if (what < 50) {
		usim_task_add_runtime(p, TICK_NS);
		call(G.preempt && (G.seq & 1) ? SAAKM_EV_PREEMPT : SAAKM_EV_TICK, cpu, p, 0, cpu);
		if (usim_task_state(p) == SAAKM_ST_READY_TICK) {
			force(p, SAAKM_ST_READY);	/* put_prev_task */
			leave(cpu);
		}
	} else if (what < 80) {
		call(SAAKM_EV_BLOCK, cpu, p, 0, cpu);
		leave(cpu);
	} else if (what < 95) {
		call(SAAKM_EV_YIELD, cpu, p, 0, cpu);
		if (usim_task_state(p) != SAAKM_ST_RUNNING)
			leave(cpu);
	} else {
		exit_task(cpu, p);
	}
}

static void step(void)
{
	int cpu = rnd(G.nr_cpus), blocked[64], n = 0;

	usim_advance_ns(TICK_NS / 4);
	if (G.alive < G.max_tasks && !rnd(G.alive + 1)) {
		spawn();
		return;
	}
	if (G.curr[cpu] >= 0 && rnd(3)) {
		step_running(cpu);
		return;
	}
	for (int i = 0; i < G.alive && n < 64; i++)
		if (usim_task_state(usim_task(G.pids[i])) == SAAKM_ST_BLOCKED)
			blocked[n++] = G.pids[i];
	if (n)
		wake(usim_task(blocked[rnd(n)]));
	else
		kick(cpu);
}

/*
 * Interleave the records of consecutive calls on different CPUs, as the
 * kernel's would be when both run at once, within what replay reproduces:
 * the second call's records may come before the first one's RET, not
 * before its last effect (replay runs a call's code right after its
 * previous record, so B starting before A's state change would see the
 * world before it, which is not what this generator ran).
 */
static void interleave(void)
{
	struct saakm_rec *r = G.rec.recs, *out = malloc(G.rec.nr * sizeof(*out));
	size_t i = 0, o = 0, a_end, b_end;

	if (!out)
		exit(1);
	while (i < G.rec.nr) {
		/* a call: CALL .. RET on one CPU; anything else stands alone */
		for (a_end = i + 1; r[i].kind == SAAKM_REC_CALL && r[a_end - 1].kind != SAAKM_REC_RET;)
			a_end++;
		b_end = a_end;
		if (r[i].kind == SAAKM_REC_CALL && b_end < G.rec.nr && r[b_end].kind == SAAKM_REC_CALL &&
		    r[b_end].on_cpu != r[i].on_cpu)
			for (b_end++; r[b_end - 1].kind != SAAKM_REC_RET;)
				b_end++;
		if (b_end == a_end) {
			while (i < a_end)
				out[o++] = r[i++];
			continue;
		}
		/* A up to its RET, then A's RET merged into B, each in order */
		size_t x = a_end - 1, y = a_end;

		while (i < a_end - 1)
			out[o++] = r[i++];
		while (x < a_end || y < b_end)
			out[o++] = (y == b_end || (x < a_end && rnd(2))) ? r[x++] : r[y++];
		i = b_end;
	}
	for (i = 0; i < o; i++)
		out[i].seq = i + 1;
	free(G.rec.recs);
	G.rec.recs = out;
}

int main(int argc, char **argv)
{
	const struct usim_hooks hooks = { .state = on_state, .input = on_input, .error = on_error };
	const char *params = "";
	long records = 1000;
	char err[512], all_params[512];
	int c, inter = 0;

	G.nr_cpus = 4;
	G.max_tasks = 16;
	G.seed = 1;
	while ((c = getopt(argc, argv, "n:c:t:s:P:ik")) != -1) {
		switch (c) {
		case 'n': records = atol(optarg); break;
		case 'c': G.nr_cpus = atoi(optarg); break;
		case 't': G.max_tasks = atoi(optarg); break;
		case 's': G.seed = strtoull(optarg, NULL, 10) | 1; break;
		case 'P': params = optarg; break;
		case 'i': inter = 1; break;
		case 'k': G.preempt = 1; break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || G.nr_cpus < 1 || G.nr_cpus > USIM_MAX_CPUS || G.max_tasks < 1)
		goto usage;
	usim_set_quiet(1);
	if (usim_setup(G.nr_cpus, &hooks) || usim_set_params(params) || usim_load() ||
	    !(G.pol = usim_policy(NULL))) {
		fprintf(stderr, "gen: cannot load the policy with '%s'\n", params);
		return 1;
	}
	G.pids = calloc(G.max_tasks, sizeof(int));
	G.next_pid = 1000;
	for (c = 0; c < G.nr_cpus; c++)
		G.curr[c] = -1;
	while ((long)G.seq < records)
		step();
	if (inter)
		interleave();
	usim_get_params(all_params, sizeof(all_params));
	saakm_rec_header_init(&G.rec.hdr, usim_policy_name(G.pol), "gen", all_params, G.nr_cpus);
	if (saakm_rec_write(argv[optind], &G.rec.hdr, G.rec.recs, G.rec.nr, err, sizeof(err))) {
		fprintf(stderr, "gen: %s\n", err);
		return 1;
	}
	printf("gen: %zu records of %s on %d CPUs -> %s\n", G.rec.nr, usim_policy_name(G.pol),
	       G.nr_cpus, argv[optind]);
	return 0;
usage:
	fprintf(stderr, "usage: gen OUT.rec [-n RECORDS] [-c CPUS] [-t TASKS] [-s SEED] [-P PARAMS] [-i] [-k]\n");
	return 2;
}
