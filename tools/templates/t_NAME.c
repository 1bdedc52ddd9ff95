// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the policy @NAME@, compiled unchanged from
 * @SRC@
 * against libusim and driven by the class simulation (usim_class.h): make
 * policy-test P=@NAME@ runs them, then stresses the policy with seeds 1..200.
 *
 * 'saakm new' wrote this file with the policy: the first four tests state
 * what any policy owes its tasks (every task runs, a woken task runs again,
 * CPU hotplug loses none, an unload leaves nothing behind), and t_order is
 * an example of a test of a decision, the FIFO tutorial's that @NAME@ starts
 * from. Change t_order, and add tests like it, as @NAME@'s decisions become
 * its own; tests/policy/t_fifo.c and docs/testing-policies.md show more.
 */
#include "policy_test.h"

#define MS 1000000ULL

/*
 * Six tasks that never sleep on two CPUs: each gets CPU time within half a
 * second. A policy that lets a task keep its CPU while others wait (no
 * slice) fails here; if that is what it is for, say so here instead.
 */
static void t_all_run(void)
{
	int pid;

	START(.nr_cpus = 2);
	for (pid = 1; pid <= 6; pid++)
		EXPECT_EQ(uc_fork(pid, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(500 * MS), 0);
	printf("#   CPU time of tasks 1-6 (ms):");
	for (pid = 1; pid <= 6; pid++)
		printf(" %llu", uc_runtime(pid) / MS);
	printf("\n");
	for (pid = 1; pid <= 6; pid++)
		EXPECT_GT(uc_runtime(pid), 0);
}

/* A task alone that sleeps and wakes up runs again at once. */
static void t_sleep_wake(void)
{
	START(.nr_cpus = 2);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_curr(uc_cpu_of(1)), 1);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_state(1), SAAKM_BLOCKED);
	EXPECT_EQ(uc_advance(10 * MS), 0);
	EXPECT_EQ(uc_wake(1), 0);
	EXPECT_EQ(uc_curr(uc_cpu_of(1)), 1);
}

/*
 * A CPU goes down: its tasks move to the other one, none is lost (the
 * simulation checks that after every operation) and all still run.
 */
static void t_hotplug(void)
{
	int pid;

	START(.nr_cpus = 2);
	for (pid = 1; pid <= 4; pid++)
		EXPECT_EQ(uc_fork(pid, 0, 0, 0), 0);
	EXPECT_EQ(uc_cpu_down(1), 0);
	for (pid = 1; pid <= 4; pid++)
		EXPECT_EQ(uc_cpu_of(pid), 0);
	EXPECT_EQ(uc_advance(100 * MS), 0);
	EXPECT_EQ(uc_cpu_up(1), 0);
	EXPECT_EQ(uc_advance(100 * MS), 0);
}

/* Unload with tasks running, waiting and asleep: nothing is left held. */
static void t_unload(void)
{
	int pid;

	START(.nr_cpus = 2);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_block(1), 0);			/* one asleep */
	for (pid = 2; pid <= 6; pid++)
		EXPECT_EQ(uc_fork(pid, 0, 0, 0), 0);
	EXPECT_EQ(uc_exit(2), 0);			/* one gone */
	EXPECT_EQ(uc_advance(30 * MS), 0);
	EXPECT_EQ(uc_unload(), 0);
	EXPECT_EQ(usim_alloc_outstanding(), 0);
}

/*
 * The example of a decision, as generated: on one CPU, tasks run in the
 * order they arrived and a task that wakes up goes behind those waiting.
 */
static void t_order(void)
{
	START(.nr_cpus = 1);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);	/* runs */
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);	/* waits */
	EXPECT_EQ(uc_fork(3, 0, 0, 0), 0);	/* waits behind 2 */
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_wake(1), 0);		/* behind 3 */
	EXPECT_EQ(uc_block(2), 0);
	EXPECT_EQ(uc_curr(0), 3);
	EXPECT_EQ(uc_block(3), 0);
	EXPECT_EQ(uc_curr(0), 1);
}

int main(void)
{
	printf("# saakm_@NAME@ (@SRC@) on libusim\n");
	RUN(t_all_run, "every task gets CPU time");
	RUN(t_sleep_wake, "a task that wakes up runs again");
	RUN(t_hotplug, "hotplug: the tasks of a CPU going down move, none is lost");
	RUN(t_unload, "unload: nothing left attached or held");
	RUN(t_order, "one CPU: arrival order, a woken task goes last");
	return tap_done();
}
