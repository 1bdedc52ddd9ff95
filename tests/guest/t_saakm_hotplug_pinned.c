// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU taken offline right after a SaaKM spinner was pinned to it, over
 * and over: the core pushes the spinner off (its affinity falls back to
 * every CPU) while sleepers of the same policy wake and block around it.
 * Every task must keep running: each round checks that every task left the
 * CPU, kept SCHED_SAAKM and got CPU time while the CPU was down, and again
 * once it was back. A task the class lost (runnable, but in no runqueue and
 * not running) makes no progress; the watchdog would only see it after its
 * timeout, which the last check also looks for.
 */
#include "saakm_test.h"

SAAKM_TAG("timeout=600");

#define NR_TASKS	4
#define ROUNDS		20

static pid_t tasks[NR_TASKS];

/* True if every task got CPU time within @limit_s; names the first that did not. */
static int all_progress(double limit_s)
{
	long long before[NR_TASKS];
	double t0 = now_s();
	int i, left;

	for (i = 0; i < NR_TASKS; i++)
		before[i] = task_runtime_ns(tasks[i]);
	do {
		usleep(20000);
		for (i = 0, left = 0; i < NR_TASKS; i++)
			left += task_runtime_ns(tasks[i]) <= before[i];
	} while (left && now_s() - t0 < limit_s);
	for (i = 0; i < NR_TASKS && left; i++)
		if (task_runtime_ns(tasks[i]) <= before[i])
			printf("# task %d (cpu %d) got no CPU time in %.1f s\n",
			       tasks[i], task_cpu_of(tasks[i]), limit_s);
	return !left;
}

/* True if no task is on @cpu and all are still SCHED_SAAKM. */
static int all_off(int cpu)
{
	int ok = 1;

	for (int i = 0; i < NR_TASKS; i++) {
		if (task_cpu_of(tasks[i]) == cpu || sched_getscheduler(tasks[i]) != SCHED_SAAKM) {
			printf("# task %d: cpu %d, policy %d\n", tasks[i],
			       task_cpu_of(tasks[i]), sched_getscheduler(tasks[i]));
			ok = 0;
		}
	}
	return ok;
}

/* One round; 0, or the number of the check that failed. */
static int one_round(int last, double limit_s)
{
	if (pin_to(tasks[0], last))
		return 1;
	if (set_cpu_online(last, 0))
		return 2;
	usleep(100000);		/* sleepers on their way back from it */
	if (!all_off(last))
		return 3;
	if (!all_progress(limit_s))
		return 4;
	if (set_cpu_online(last, 1))
		return 5;
	if (!all_progress(limit_s))
		return 6;
	return 0;
}

int main(void)
{
	int last = nr_cpus() - 1, id, ok, round, failed = 0;
	double limit_s = 2.0 * timeout_scale();

	require_cpus(2, "CPU hotplug");
	stop_init();
	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	TAP_CHECK(id > 0, "fifo loaded");
	if (id <= 0)
		return tap_done();

	tasks[0] = spawn(spinner, 0);
	for (int i = 1; i < NR_TASKS; i++)
		tasks[i] = spawn(sleeper, 2000);
	ok = 1;
	for (int i = 0; i < NR_TASKS; i++)
		ok &= saakm_join(tasks[i], id, 0) == 0;
	TAP_CHECK(ok, "4 tasks join fifo");

	for (round = 1; round <= ROUNDS && !failed; round++)
		failed = one_round(last, limit_s);
	if (failed)
		printf("# round %d failed at check %d\n", round - 1, failed);
	TAP_CHECK(!failed, "20 rounds: pin a spinner to the last CPU, take it offline, every task runs on");

	*stop = 1;
	ok = 1;
	for (int i = 0; i < NR_TASKS; i++)
		ok &= reaped_ok(tasks[i]);
	TAP_CHECK(ok, "all tasks finish");
	TAP_CHECK(unload_module("saakm_fifo") == 0, "rmmod saakm_fifo");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
