// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of policies/locality/saakm_locality.c, compiled unchanged
 * against libusim and driven by the class simulation (usim_class.h), on 8
 * CPUs in 2 NUMA nodes of 2 LLCs of 2 CPUs:
 *
 *	node 0: LLC {0,1}, LLC {2,3}	node 1: LLC {4,5}, LLC {6,7}
 *
 * Placement (the previous CPU, its LLC, its node, anywhere, then the least
 * loaded CPU of its LLC; a new task from its parent's CPU), balancing (an
 * idle CPU pulls from its own LLC first, then its node, then anywhere; a
 * light CPU every balance_ms; a busy CPU's tick kicks the nearest idle
 * one), affinity, hotplug, the round robin slice, parameters and unload.
 *
 * The same tests are compiled against the planted bug of
 * tests/policy/locality_llc_bug, on which the placement tests must fail
 * (tests/policy/run.sh checks that they do).
 */
#include <errno.h>

#include "policy_test.h"

#define MS	1000000ULL
#define ALL	0xffULL
#define TOPO	.nr_cpus = 8, .llc = 2, .node = 4

/* Runnable tasks among pids @first..@last on @cpu. */
static int nr_on(int cpu, int first, int last)
{
	int pid, n = 0;

	for (pid = first; pid <= last; pid++)
		n += uc_runnable(pid) && uc_cpu_of(pid) == cpu;
	return n;
}

/* Task @pid, runnable on @cpu without asking the policy, free to move. */
static int put_on(int pid, int cpu)
{
	if (uc_fork(pid, cpu, 1ULL << cpu, 0) || uc_set_affinity(pid, ALL))
		return -1;
	return uc_cpu_of(pid) == cpu ? 0 : -1;
}

/* A task wakes up on the CPU it last ran on when that CPU idles. */
static void t_wake_prev(void)
{
	START(TOPO);
	EXPECT_EQ(uc_fork(1, 5, 0, 0), 0);	/* its parent's CPU idles: there */
	EXPECT_EQ(uc_cpu_of(1), 5);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_wake(1), 0);
	EXPECT_EQ(uc_cpu_of(1), 5);
	EXPECT_EQ(uc_curr(5), 1);
}

/*
 * A waker runs on CPU 1, where its wakee ran before: the wakee goes to
 * CPU 0, the idle CPU of that LLC, not to CPU 2, the next idle one.
 */
static void t_wakee_waker_llc(void)
{
	START(TOPO);
	EXPECT_EQ(uc_fork(1, 1, 0, 0), 0);	/* the wakee, on CPU 1 */
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_fork(2, 1, 0, 0), 0);	/* the waker, on CPU 1 now */
	EXPECT_EQ(uc_curr(1), 2);
	EXPECT_EQ(uc_wake(1), 0);
	EXPECT_EQ(uc_cpu_of(1), 0);
	EXPECT_EQ(uc_curr(0), 1);
}

/* A new task starts in its parent's LLC: CPU 2 beside its parent on 3. */
static void t_fork_llc(void)
{
	START(TOPO);
	EXPECT_EQ(uc_fork(1, 3, 0, 0), 0);
	EXPECT_EQ(uc_curr(3), 1);
	EXPECT_EQ(uc_fork_from(1, 2), 0);
	EXPECT_EQ(uc_cpu_of(2), 2);
	EXPECT_EQ(uc_fork_from(1, 3), 0);	/* the LLC is full: the node */
	EXPECT_EQ(uc_cpu_of(3), 0);
}

/* LLC full: an idle CPU of the node; node full: one of the other node. */
static void t_fallback(void)
{
	START(TOPO);
	EXPECT_EQ(uc_fork(1, 1, 0, 0), 0);	/* tasks 1 and 2 last ran on CPU 1 */
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_fork(2, 1, 0, 0), 0);
	EXPECT_EQ(uc_block(2), 0);
	EXPECT_EQ(uc_fork(10, 0, 1ULL << 0, 0), 0);
	EXPECT_EQ(uc_fork(11, 1, 1ULL << 1, 0), 0);
	EXPECT_EQ(uc_wake(1), 0);
	EXPECT_EQ(uc_cpu_of(1), 2);		/* node 0, the other LLC */
	EXPECT_EQ(uc_fork(13, 3, 1ULL << 3, 0), 0);
	EXPECT_EQ(uc_wake(2), 0);
	EXPECT_EQ(uc_cpu_of(2), 4);		/* node 0 is full: node 1 */
}

/*
 * No CPU idles: the least loaded CPU of the task's own LLC, even though
 * CPUs of other LLCs have less to do; its previous CPU wins a tie.
 */
static void t_least_loaded(void)
{
	int cpu;

	START(TOPO);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);	/* tasks 1 and 2 last ran on CPU 0 */
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_block(2), 0);
	for (cpu = 0; cpu < 8; cpu++)		/* one each, and a second on 0 */
		EXPECT_EQ(uc_fork(10 + cpu, cpu, 1ULL << cpu, 0), 0);
	EXPECT_EQ(uc_fork(20, 0, 1ULL << 0, 0), 0);
	EXPECT_EQ(uc_wake(1), 0);
	EXPECT_EQ(uc_cpu_of(1), 1);		/* 2 on CPU 0, 1 on CPU 1 */
	EXPECT_EQ(uc_wake(2), 0);
	EXPECT_EQ(uc_cpu_of(2), 0);		/* 2 and 2: its own CPU */
}

/* Placement stays within the affinity, whatever idles nearer. */
static void t_affinity_place(void)
{
	START(TOPO);
	EXPECT_EQ(uc_fork(1, 1, 0, 0), 0);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_fork(10, 1, 1ULL << 1, 0), 0);
	EXPECT_EQ(uc_set_affinity(1, (1ULL << 1) | (1ULL << 6)), 0);
	EXPECT_EQ(uc_wake(1), 0);		/* 0, 2-5 idle, but not allowed */
	EXPECT_EQ(uc_cpu_of(1), 6);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_fork(16, 6, 1ULL << 6, 0), 0);
	EXPECT_EQ(uc_wake(1), 0);		/* none idles: the one it may use in its LLC */
	EXPECT_EQ(uc_cpu_of(1), 6);
}

/*
 * CPU 0 goes idle. CPU 1, its LLC neighbour, has one task waiting; CPU 2,
 * in the other LLC, has three: CPU 0 still pulls from CPU 1.
 */
static void t_pull_llc_first(void)
{
	int pid;

	START(TOPO, .params = "balance_ms=0");
	EXPECT_EQ(uc_fork(1, 0, 1ULL << 0, 0), 0);
	for (pid = 2; pid <= 3; pid++)
		EXPECT_EQ(put_on(pid, 1), 0);
	for (pid = 4; pid <= 7; pid++)
		EXPECT_EQ(put_on(pid, 2), 0);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_curr(0), 3);
	EXPECT_EQ(nr_on(1, 2, 7), 1);
	EXPECT_EQ(nr_on(2, 2, 7), 4);
}

/* Nothing waits in the LLC: the node (CPU 3) before node 1 (CPU 5), then node 1. */
static void t_pull_node_then_all(void)
{
	int pid;

	START(TOPO, .params = "balance_ms=0");
	EXPECT_EQ(uc_fork(1, 0, 1ULL << 0, 0), 0);
	for (pid = 2; pid <= 3; pid++)
		EXPECT_EQ(put_on(pid, 3), 0);
	for (pid = 4; pid <= 7; pid++)
		EXPECT_EQ(put_on(pid, 5), 0);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_curr(0), 3);		/* from CPU 3 */
	EXPECT_EQ(uc_block(3), 0);		/* CPU 3 has 1 left: not worth it */
	EXPECT_EQ(uc_curr(0), 5);		/* the oldest waiting on CPU 5 */
	EXPECT_EQ(nr_on(5, 2, 7), 3);
}

/*
 * A task is pulled only to a CPU it may use: task 3 (CPUs 1 and 7) waits on
 * CPU 1, CPU 0 goes idle and takes nothing; CPU 1's tick kicks CPU 7,
 * the nearest idle CPU task 3 may use, which pulls it.
 */
static void t_affinity_pull(void)
{
	START(TOPO, .params = "balance_ms=0");
	EXPECT_EQ(uc_fork(1, 0, 1ULL << 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 1, 1ULL << 1, 0), 0);
	EXPECT_EQ(uc_fork(3, 1, 1ULL << 1, 0), 0);
	EXPECT_EQ(uc_set_affinity(3, (1ULL << 1) | (1ULL << 7)), 0);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_curr(0), -1);
	EXPECT_EQ(uc_cpu_of(3), 1);
	EXPECT_EQ(uc_advance(4 * MS), 0);
	EXPECT_EQ(uc_kick_stats()->idle_kicks, 1);
	EXPECT_EQ(uc_curr(7), 3);
	EXPECT_EQ(uc_curr(0), -1);
}

/*
 * balance_ms=0, so only kicks balance: CPU 4's tick kicks CPU 5 (its LLC),
 * which pulls; at the next tick CPU 4 still has one waiting and its LLC
 * is busy, so it kicks CPU 6 (its node), which pulls from CPU 4.
 */
static void t_kick_nearest(void)
{
	int pid;

	START(TOPO, .params = "balance_ms=0");
	for (pid = 1; pid <= 4; pid++)
		EXPECT_EQ(put_on(pid, 4), 0);
	EXPECT_EQ(uc_advance(4 * MS), 0);
	EXPECT_EQ(nr_on(5, 1, 4), 1);
	EXPECT_EQ(nr_on(4, 1, 4), 3);
	EXPECT_EQ(uc_advance(4 * MS), 0);
	EXPECT_EQ(nr_on(6, 1, 4), 1);
	EXPECT_EQ(nr_on(4, 1, 4), 2);
	EXPECT_EQ(uc_advance(4 * MS), 0);	/* CPU 4 has 1 waiting: CPU 7 */
	EXPECT_EQ(nr_on(7, 1, 4), 1);
}

/*
 * Two CPUs with the policy's @params, neither idle: tasks 1-5 on CPU 0,
 * task 6 pinned to CPU 1; then 100 ms.
 */
static void five_and_one(const char *params)
{
	int pid;

	START(.nr_cpus = 2, .params = params);
	for (pid = 1; pid <= 5; pid++)
		EXPECT_EQ(put_on(pid, 0), 0);
	EXPECT_EQ(uc_fork(6, 1, 1ULL << 1, 0), 0);
	EXPECT_EQ(uc_advance(100 * MS), 0);
}

/* No CPU idles: every balance_ms a light CPU pulls, until within one. */
static void t_balance_periodic(void)
{
	five_and_one("balance_ms=8");
	EXPECT_EQ(nr_on(0, 1, 6), 3);
	EXPECT_EQ(nr_on(1, 1, 6), 3);
}

/* ... and with balance_ms=0, nothing moves. */
static void t_balance_off(void)
{
	five_and_one("balance_ms=0");
	EXPECT_EQ(nr_on(0, 1, 6), 5);
	EXPECT_EQ(uc_calls(SAAKM_EV_BALANCING_SELECT), 0);
}

/*
 * slice_ms=10: the running task gives way at the first tick at or past
 * 10 ms; four tasks pinned to one CPU share it within a slice.
 */
static void t_slice(void)
{
	int pid;

	START(TOPO, .params = "slice_ms=10");
	for (pid = 1; pid <= 4; pid++)
		EXPECT_EQ(uc_fork(pid, 2, 1ULL << 2, 0), 0);
	EXPECT_EQ(uc_advance(8 * MS), 0);
	EXPECT_EQ(uc_curr(2), 1);
	EXPECT_EQ(uc_advance(4 * MS), 0);	/* tick at 12 ms */
	EXPECT_EQ(uc_curr(2), 2);
	EXPECT_EQ(uc_runtime(1), 12 * MS);
	EXPECT_EQ(uc_advance(1000 * MS), 0);
	for (pid = 1; pid <= 4; pid++) {
		EXPECT_GE(uc_runtime(pid), 240 * MS);
		EXPECT_LE(uc_runtime(pid), 265 * MS);
	}
}

/* A task alone on its CPU is never preempted. */
static void t_alone(void)
{
	START(TOPO, .params = "slice_ms=1");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(100 * MS), 0);
	EXPECT_EQ(uc_runtime(1), 100 * MS);
	EXPECT_EQ(uc_calls(SAAKM_EV_SCHEDULE), 1);
}

/*
 * 24 tasks on CPU 6, and a sleeper whose CPU goes offline: CPU 6 goes
 * down, its tasks are moved and spread, everyone runs; the sleeper wakes
 * on an online CPU. Then CPU 6 comes back and is used again.
 */
static void t_hotplug(void)
{
	unsigned long long before[25];
	int pid, cpu, busy = 0;

	START(TOPO);
	EXPECT_EQ(uc_fork(25, 6, 0, 0), 0);
	EXPECT_EQ(uc_block(25), 0);
	for (pid = 1; pid <= 24; pid++)
		EXPECT_EQ(put_on(pid, 6), 0);
	EXPECT_EQ(uc_cpu_down(6), 0);
	EXPECT_EQ(nr_on(6, 1, 24), 0);
	for (pid = 1; pid <= 24; pid++)
		before[pid] = uc_runtime(pid);
	EXPECT_EQ(uc_advance(500 * MS), 0);
	for (pid = 1; pid <= 24; pid++)
		EXPECT_GT(uc_runtime(pid), before[pid]);
	for (cpu = 0; cpu < 8; cpu++)
		busy += uc_curr(cpu) > 0;
	EXPECT_EQ(busy, 7);
	EXPECT_EQ(uc_wake(25), 0);
	EXPECT(uc_online(uc_cpu_of(25)));
	EXPECT_EQ(uc_cpu_up(6), 0);
	EXPECT_EQ(uc_advance(100 * MS), 0);
	EXPECT_GT(uc_curr(6), 0);
	EXPECT_EQ(uc_unload(), 0);
}

/* A bad value at load time: the module does not load. */
static void t_params_load(void)
{
	struct uc_opts o = { .nr_cpus = 1, .quiet = 1, .params = "slice_ms=0" };

	EXPECT_NE(uc_start(&o), 0);
	uc_clear_failure();
}

/* Parameters: out-of-range writes refused, the value kept. */
static void t_params(void)
{
	char buf[64] = "";

	START(.nr_cpus = 1);
	EXPECT_EQ(usim_param_read("slice_ms", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "10");
	EXPECT_EQ(usim_param_write("slice_ms", "0"), -EINVAL);
	EXPECT_EQ(usim_param_write("slice_ms", "1001"), -EINVAL);
	EXPECT_EQ(usim_param_read("slice_ms", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "10");
	EXPECT_EQ(usim_param_write("slice_ms", "3"), 0);
	EXPECT_EQ(usim_param_read("balance_ms", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "20");
	uc_clear_failure();
}

/* Exit and unload: nothing left attached or allocated. */
static void t_unload(void)
{
	int pid;

	START(TOPO);
	for (pid = 1; pid <= 12; pid++)
		EXPECT_EQ(uc_fork(pid, pid % 8, 0, 0), 0);
	EXPECT_EQ(uc_advance(50 * MS), 0);
	EXPECT_EQ(uc_block(uc_curr(0)), 0);
	EXPECT_EQ(uc_exit(uc_curr(1)), 0);
	EXPECT_EQ(uc_advance(30 * MS), 0);
	EXPECT_EQ(uc_unload(), 0);
	EXPECT_EQ(usim_alloc_outstanding(), 0);
}

int main(void)
{
	RUN(t_wake_prev, "placement: a task wakes on its previous CPU if idle");
	RUN(t_wakee_waker_llc, "placement: the wakee lands in its waker's LLC, where a CPU idles");
	RUN(t_fork_llc, "placement: a new task starts in its parent's LLC, then the node");
	RUN(t_fallback, "placement: LLC full -> the node; node full -> anywhere");
	RUN(t_least_loaded, "placement: nothing idle -> the least loaded CPU of its LLC");
	RUN(t_affinity_place, "placement: only CPUs of the task's affinity");
	RUN(t_pull_llc_first, "balance: an idle CPU pulls from its LLC before a busier LLC");
	RUN(t_pull_node_then_all, "balance: then from its node, then from anywhere");
	RUN(t_affinity_pull, "balance: a task is never pulled outside its affinity");
	RUN(t_kick_nearest, "balance: a busy CPU's tick kicks the nearest idle CPU");
	RUN(t_balance_periodic, "balance: balance_ms=8 evens 5 and 1 to 3 and 3");
	RUN(t_balance_off, "balance: balance_ms=0, no periodic balancing");
	RUN(t_slice, "slice_ms=10: round robin, 4 pinned tasks share a CPU evenly");
	RUN(t_alone, "a task alone is never preempted");
	RUN(t_hotplug, "hotplug: tasks of an offline CPU spread and run; it is used again");
	RUN(t_params_load, "slice_ms=0 at load: refused");
	RUN(t_params, "parameters: out-of-range writes refused");
	RUN(t_unload, "exit and unload: nothing left");
	return tap_done();
}
