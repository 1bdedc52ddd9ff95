// SPDX-License-Identifier: GPL-2.0
/*
 * Affinity and CPU hotplug with SaaKM tasks: sched_setaffinity() moves a
 * running task and a sleep/wake task to the CPU asked for, and taking a CPU
 * offline with SaaKM tasks on it moves them elsewhere; they keep their
 * policy and finish.
 */
#include "saakm_test.h"
#include <signal.h>
#include <sys/mman.h>

/* True if @pid is seen only on @cpu over a few samples. */
static int stays_on(pid_t pid, int cpu)
{
	usleep(200000);
	for (int i = 0; i < 5; i++) {
		if (task_cpu_of(pid) != cpu)
			return 0;
		usleep(50000);
	}
	return 1;
}

int main(void)
{
	int last = nr_cpus() - 1, id, ok;
	pid_t t[4];

	require_cpus(2, "affinity and hotplug");
	stop_init();
	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	TAP_CHECK(id > 0, "fifo loaded");
	if (id <= 0)
		return tap_done();

	t[0] = spawn(spinner, 0);
	t[1] = spawn(sleeper, 5000);
	t[2] = spawn(sleeper, 5000);
	t[3] = spawn(sleeper, 5000);
	ok = 1;
	for (int i = 0; i < 4; i++)
		ok &= saakm_join(t[i], id, 0) == 0;
	TAP_CHECK(ok, "4 tasks join fifo");

	for (int i = 0; i < 2; i++) {
		pin_to(t[i], last);
		TAP_CHECK(stays_on(t[i], last), i ? "sleep/wake task follows affinity to the last CPU"
						   : "running task follows affinity to the last CPU");
		pin_to(t[i], 0);
		TAP_CHECK(stays_on(t[i], 0), i ? "sleep/wake task follows affinity to CPU 0"
					       : "running task follows affinity to CPU 0");
	}

	/* Spread the others over all CPUs, then take the last CPU away. */
	pin_to(t[0], last);
	TAP_CHECK(set_cpu_online(last, 0) == 0, "offline the last CPU with SaaKM tasks queued");
	/* A sleeper shows the CPU it last ran on until its next wakeup. */
	usleep(300000);
	ok = 1;
	for (int i = 0; i < 4; i++)
		ok &= task_cpu_of(t[i]) != last && sched_getscheduler(t[i]) == SCHED_SAAKM;
	TAP_CHECK(ok, "its tasks moved off it and stayed on fifo");
	TAP_CHECK(set_cpu_online(last, 1) == 0, "bring it back online");
	usleep(300000);

	*stop = 1;
	ok = 1;
	for (int i = 0; i < 4; i++)
		ok &= reaped_ok(t[i]);
	TAP_CHECK(ok, "all tasks finish");
	TAP_CHECK(unload_module("saakm_fifo") == 0, "rmmod saakm_fifo");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
