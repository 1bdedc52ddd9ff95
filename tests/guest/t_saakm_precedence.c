// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM runs below every other class: on a CPU where a fair task or an RT
 * task is runnable, a SaaKM task gets no more than the class's deadline
 * server guarantees it (server_runtime_us per server_period_us, 5% by
 * default), hence the 10% bound; with the server off, (almost) nothing.
 */
#include "saakm_test.h"
#include <signal.h>

#define SERVER_RUNTIME	"/sys/kernel/saakm/server_runtime_us"

static int spin_forever(long unused __attribute__((unused)))
{
	for (;;)
		;
	return 0;
}

/* Share of a second the SaaKM hog got while @policy competitor spun. */
static double saakm_share_against(pid_t hog, int cpu, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	long long before, after;
	pid_t rival;

	rival = spawn(spin_forever, 0);
	pin_to(rival, cpu);
	if (sched_setscheduler(rival, policy, &sp))
		perror("sched_setscheduler");
	usleep(100000);
	before = task_runtime_ns(hog);
	usleep(1000000);
	after = task_runtime_ns(hog);
	kill(rival, SIGKILL);
	waitpid(rival, NULL, 0);
	return (after - before) / 1e9;
}

int main(void)
{
	int cpu = nr_cpus() - 1;
	long long before, after;
	double share;
	pid_t hog;
	int id;

	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	TAP_CHECK(id > 0, "fifo loaded");
	if (id <= 0)
		return tap_done();

	hog = spawn(spin_forever, 0);
	pin_to(hog, cpu);
	TAP_CHECK(saakm_join(hog, id, 0) == 0, "CPU hog joins fifo");
	usleep(100000);
	before = task_runtime_ns(hog);
	usleep(500000);
	after = task_runtime_ns(hog);
	share = (after - before) / 0.5e9;
	printf("# alone: SaaKM hog got %.0f%% of cpu %d\n", share * 100, cpu);
	TAP_CHECK(share > 0.5, "alone, the SaaKM hog runs");

	share = saakm_share_against(hog, cpu, SCHED_OTHER, 0);
	printf("# against a fair hog: %.1f%%\n", share * 100);
	TAP_CHECK(share < 0.10, "a fair task takes precedence, beyond the server's share");

	share = saakm_share_against(hog, cpu, SCHED_FIFO, 10);
	printf("# against an RT hog: %.1f%%\n", share * 100);
	TAP_CHECK(share < 0.10, "an RT task takes precedence, beyond the server's share");

	TAP_CHECK(sysfs_set(SERVER_RUNTIME, "0") == 0, "server off (server_runtime_us = 0)");
	share = saakm_share_against(hog, cpu, SCHED_OTHER, 0);
	printf("# against a fair hog, server off: %.1f%%\n", share * 100);
	TAP_CHECK(share < 0.02, "with the server off, a fair task takes all the CPU");
	TAP_CHECK(sysfs_set(SERVER_RUNTIME, "50000") == 0, "server back on (50 ms)");

	before = task_runtime_ns(hog);
	usleep(500000);
	after = task_runtime_ns(hog);
	TAP_CHECK((after - before) / 0.5e9 > 0.5, "the SaaKM hog resumes afterwards");

	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	TAP_CHECK(unload_module("saakm_fifo") == 0, "rmmod saakm_fifo");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
