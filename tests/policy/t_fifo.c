// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of policies/fifo/saakm_fifo.c, compiled unchanged against
 * libusim and driven by the class simulation (usim_class.h): placement by
 * pid within the affinity, FIFO order, slice preemption at ticks, yield,
 * stealing with steal=Y (and not without), class moves on affinity change
 * and hotplug, and an unload that leaves nothing behind.
 */
#include "policy_test.h"

#define MS 1000000ULL

/* Placement: the n-th allowed CPU, n = pid % number allowed; at wakeup too. */
static void t_placement(void)
{
	START(.nr_cpus = 4);
	EXPECT_EQ(uc_fork(5, 1, 0xa, 0), 0);	/* cpus 1,3: 5 % 2 = 1 -> cpu 3 */
	EXPECT_EQ(uc_cpu_of(5), 3);
	EXPECT_EQ(uc_fork(6, 3, 0xa, 0), 0);	/* 6 % 2 = 0 -> cpu 1 */
	EXPECT_EQ(uc_cpu_of(6), 1);
	EXPECT_EQ(uc_fork(7, 0, 0, 0), 0);	/* all 4: 7 % 4 = 3 -> cpu 3 */
	EXPECT_EQ(uc_cpu_of(7), 3);
	EXPECT_EQ(uc_fork(8, 0, 0x6, 0), -1);	/* the parent's CPU must be allowed */
	EXPECT_EQ(uc_fork(9, 2, 0x6, 0), 0);	/* cpus 1,2: 9 % 2 = 1 -> cpu 2 */
	EXPECT_EQ(uc_cpu_of(9), 2);
	EXPECT_EQ(uc_curr(2), 9);
	EXPECT_EQ(uc_block(9), 0);
	EXPECT_EQ(uc_set_affinity(9, 0x3), 0);	/* asleep: nothing moves now */
	EXPECT_EQ(uc_wake(9), 0);		/* cpus 0,1: 9 % 2 = 1 -> cpu 1 */
	EXPECT_EQ(uc_cpu_of(9), 1);
}

/* One CPU, no slice: tasks run in arrival order, a woken task goes last. */
static void t_fifo_order(void)
{
	int order[5], i;

	START(.nr_cpus = 1, .params = "slice_ms=0");
	for (i = 1; i <= 4; i++)
		EXPECT_EQ(uc_fork(i, 0, 0, 0), 0);
	order[0] = uc_curr(0);
	EXPECT_EQ(uc_block(order[0]), 0);
	order[1] = uc_curr(0);
	EXPECT_EQ(uc_wake(1), 0);
	EXPECT_EQ(uc_block(order[1]), 0);
	order[2] = uc_curr(0);
	EXPECT_EQ(uc_block(order[2]), 0);
	order[3] = uc_curr(0);
	EXPECT_EQ(uc_block(order[3]), 0);
	order[4] = uc_curr(0);
	printf("#   order: %d %d %d %d %d\n", order[0], order[1], order[2], order[3], order[4]);
	EXPECT_EQ(order[0], 1);
	EXPECT_EQ(order[1], 2);
	EXPECT_EQ(order[2], 3);
	EXPECT_EQ(order[3], 4);
	EXPECT_EQ(order[4], 1);
	EXPECT_EQ(uc_nr_ready(0), 0);
}

/* slice_ms=8: the running task is preempted at the first tick at or past 8 ms. */
static void t_slice(void)
{
	START(.nr_cpus = 1, .params = "slice_ms=8");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_advance(4 * MS), 0);	/* tick at 4 ms: 4 ms used */
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_advance(4 * MS), 0);	/* tick at 8 ms: the slice is used */
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_state(1), SAAKM_READY);
	EXPECT_EQ(uc_runtime(1), 8 * MS);
	EXPECT_EQ(uc_advance(8 * MS), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_runtime(2), 8 * MS);
}

/* Nobody waiting: no preemption, however long the task runs. */
static void t_slice_alone(void)
{
	START(.nr_cpus = 1, .params = "slice_ms=4");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(100 * MS), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_runtime(1), 100 * MS);
	EXPECT_EQ(uc_calls(SAAKM_EV_SCHEDULE), 1);
}

/* slice_ms=0: the running task is never preempted. */
static void t_no_slice(void)
{
	START(.nr_cpus = 1, .params = "slice_ms=0", .stall_ns = 10000 * MS);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(500 * MS), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_runtime(2), 0);
}

/* yield: the task goes to the tail; alone, it runs again. */
static void t_yield(void)
{
	START(.nr_cpus = 1);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_yield(1), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_yield(1), 0);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_state(1), SAAKM_READY);
}

/* steal=Y: a CPU going idle pulls the oldest task of the longest queue. */
static void t_steal(void)
{
	START(.nr_cpus = 2, .params = "steal=Y");
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);	/* cpu 0, runs */
	EXPECT_EQ(uc_fork(4, 0, 0, 0), 0);	/* cpu 0, waits */
	EXPECT_EQ(uc_fork(6, 0, 0, 0), 0);	/* cpu 0, waits */
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);	/* cpu 1, runs */
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_curr(1), 1);
	EXPECT_EQ(uc_block(1), 0);		/* cpu 1 goes idle: pulls 4 */
	EXPECT_EQ(uc_curr(1), 4);
	EXPECT_EQ(uc_cpu_of(4), 1);
	EXPECT_EQ(uc_cpu_of(6), 0);
	EXPECT_EQ(uc_state(6), SAAKM_READY);
	EXPECT_GE(uc_calls(SAAKM_EV_NEWLY_IDLE), 1);
	EXPECT_EQ(uc_calls(SAAKM_EV_BALANCE_PICK), 1);
}

/* steal=Y skips a task that may not run on the idle CPU. */
static void t_steal_affinity(void)
{
	START(.nr_cpus = 2, .params = "steal=Y");
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(4, 0, 0x1, 0), 0);	/* pinned to cpu 0 */
	EXPECT_EQ(uc_fork(6, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_curr(1), 6);
	EXPECT_EQ(uc_cpu_of(4), 0);
}

/* steal=N (default): the idle CPU stays idle. */
static void t_no_steal(void)
{
	START(.nr_cpus = 2);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(4, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_curr(1), -1);
	EXPECT_EQ(uc_cpu_of(4), 0);
	EXPECT_EQ(uc_calls(SAAKM_EV_NEWLY_IDLE), 0);
}

/* An affinity change that excludes the task's CPU moves it (block, unblock_place). */
static void t_affinity_move(void)
{
	START(.nr_cpus = 2);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);	/* cpu 0, runs */
	EXPECT_EQ(uc_fork(4, 0, 0, 0), 0);	/* cpu 0, waits */
	EXPECT_EQ(uc_set_affinity(2, 0x2), 0);
	EXPECT_EQ(uc_cpu_of(2), 1);
	EXPECT_EQ(uc_curr(1), 2);
	EXPECT_EQ(uc_curr(0), 4);
	EXPECT_EQ(uc_fork(6, 0, 0, 0), 0);	/* cpu 0, waits behind 4 */
	EXPECT_EQ(uc_set_affinity(6, 0x2), 0);
	EXPECT_EQ(uc_cpu_of(6), 1);
	EXPECT_EQ(uc_state(6), SAAKM_READY);
	EXPECT_EQ(uc_block(2), 0);
	EXPECT_EQ(uc_curr(1), 6);
}

/* Hotplug: the tasks of a CPU going down move, none is lost; it comes back. */
static void t_hotplug(void)
{
	START(.nr_cpus = 2, .params = "slice_ms=0");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);	/* cpu 1, runs */
	EXPECT_EQ(uc_fork(3, 0, 0, 0), 0);	/* cpu 1, waits */
	EXPECT_EQ(uc_fork(5, 0, 0, 0), 0);	/* cpu 1, waits */
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);	/* cpu 0, runs */
	EXPECT_EQ(uc_block(5), -1);		/* not running: refused */
	EXPECT_EQ(uc_cpu_down(1), 0);
	EXPECT(!uc_online(1));
	EXPECT_EQ(uc_cpu_of(1), 0);
	EXPECT_EQ(uc_cpu_of(3), 0);
	EXPECT_EQ(uc_cpu_of(5), 0);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_nr_ready(0), 3);
	EXPECT_EQ(uc_cpu_down(0), -1);		/* the last CPU stays */
	EXPECT_EQ(uc_block(2), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_block(1), 0);		/* asleep, last on cpu 0 */
	EXPECT_EQ(uc_cpu_up(1), 0);
	EXPECT_EQ(uc_wake(1), 0);		/* 1 % 2 = 1: cpu 1 again */
	EXPECT_EQ(uc_cpu_of(1), 1);
	EXPECT_EQ(uc_curr(1), 1);
	EXPECT_EQ(uc_advance(20 * MS), 0);
}

/* A sleeping task whose chosen CPU is offline wakes on an online one. */
static void t_wake_offline(void)
{
	START(.nr_cpus = 2);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);	/* cpu 1 */
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_cpu_down(1), 0);
	EXPECT_EQ(uc_wake(1), 0);		/* the policy says cpu 1: fallback */
	EXPECT_EQ(uc_cpu_of(1), 0);
	EXPECT_EQ(uc_curr(0), 1);
}

/* Exit and unload: terminate for every task, nothing left attached or held. */
static void t_unload(void)
{
	int pid;

	START(.nr_cpus = 2, .params = "steal=Y");
	for (pid = 1; pid <= 6; pid++)
		EXPECT_EQ(uc_fork(pid, 0, 0, 0), 0);
	EXPECT_EQ(uc_block(uc_curr(0)), 0);		/* one asleep */
	EXPECT_EQ(uc_exit(uc_curr(1)), 0);		/* one exits running */
	EXPECT_EQ(uc_calls(SAAKM_EV_TERMINATE), 1);
	EXPECT_EQ(uc_advance(30 * MS), 0);
	EXPECT_EQ(uc_unload(), 0);
	EXPECT_EQ(uc_calls(SAAKM_EV_TERMINATE), 6);
	EXPECT_EQ(usim_alloc_outstanding(), 0);
}

/* Module parameters: set, read back, unknown or out-of-range ones refused. */
static void t_params(void)
{
	char buf[128];

	START(.nr_cpus = 1, .params = "slice_ms=7 steal=Y");
	usim_get_params(buf, sizeof(buf));
	printf("#   params: %s\n", buf);
	EXPECT(strstr(buf, "slice_ms=7") && strstr(buf, "steal=Y"));
	EXPECT_EQ(usim_set_params("no_such_param=1"), -EINVAL);
	EXPECT(uc_failure() && strstr(uc_failure(), "no_such_param"));
	uc_clear_failure();
	EXPECT_EQ(usim_set_params("slice_ms=oops"), -EINVAL);
	uc_clear_failure();
	/* A slice past a second is refused (the stall timeout is 5 s), the value kept. */
	EXPECT_EQ(usim_param_write("slice_ms", "1001"), -EINVAL);
	EXPECT_EQ(usim_param_read("slice_ms", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "7");
	EXPECT_EQ(usim_param_write("slice_ms", "1000"), 0);
}

int main(void)
{
	printf("# saakm_fifo (policies/fifo/saakm_fifo.c) on libusim\n");
	RUN(t_placement, "placement: n-th allowed CPU by pid, at fork and wakeup");
	RUN(t_fifo_order, "FIFO order on one CPU, woken task at the tail");
	RUN(t_slice, "slice_ms=8: preempted at the 8 ms tick, round robin");
	RUN(t_slice_alone, "slice: no preemption with nobody waiting");
	RUN(t_no_slice, "slice_ms=0: never preempted");
	RUN(t_yield, "yield: to the tail; alone it runs again");
	RUN(t_steal, "steal=Y: idle CPU pulls the oldest task of the longest queue");
	RUN(t_steal_affinity, "steal=Y: a pinned task is not stolen");
	RUN(t_no_steal, "steal=N: an idle CPU stays idle");
	RUN(t_affinity_move, "affinity change moves running and waiting tasks");
	RUN(t_hotplug, "hotplug: tasks of a dying CPU move, none lost; CPU returns");
	RUN(t_wake_offline, "wakeup on an offline CPU falls back to an online one");
	RUN(t_unload, "exit and unload: terminate each task, nothing left");
	RUN(t_params, "module parameters set, read back, unknown or out-of-range refused");
	return tap_done();
}
