// SPDX-License-Identifier: GPL-2.0
/*
 * A policy that starves a task on the CPU where the watchdog runs is still
 * ejected within the stall timeout plus one second.
 *
 * The watchdog is a work item on the unbound workqueue. It used to skip a
 * READY task whose CPU was not free for its policy at the instant it looked,
 * although the task's wait clock already leaves out the time the CPU ran
 * other classes; and when the watchdog runs on the task's CPU, that CPU is
 * busy with the watchdog itself. Its worker tends to stay on one CPU, so a
 * task starved there could wait for seconds (3.5 s in a CI debug run of
 * saakm_faults) or forever. Here the unbound workqueue is confined to the
 * victim's CPU (/sys/devices/virtual/workqueue/cpumask), which made the
 * miss certain, and saakm_faulty's "starve" fault skips the victim while
 * it keeps picking the other task there, so the tick's check ("no pick
 * for a whole timeout") never fires: only the watchdog can catch it.
 */
#include "saakm_test.h"

#define CPU		0
#define TIMEOUT_MS	1000
#define SLACK_MS	(1000 * timeout_scale())	/* the debug kernel is slower */
#define FAULTY		"/sys/module/saakm_faulty/parameters/"

int main(void)
{
	char reason[256] = "", val[16];
	pid_t victim, other;
	int id, ok;
	long ms;

	require_cpus(2, "stall on the watchdog's CPU");
	stop_init();
	TAP_CHECK(watchdog_on_cpu(CPU, TIMEOUT_MS) == 0, "the watchdog on CPU 0, stall timeout 1 s");

	id = load_policy("faulty", "tests/modules/saakm_faulty/saakm_faulty.ko", "fault=starve");
	TAP_CHECK(id > 0, "saakm_faulty loaded with fault=starve");
	if (id <= 0)
		return tap_done();
	victim = spawn(spinner, 0);
	other = spawn(spinner, 0);
	ok = !pin_to(victim, CPU) && !pin_to(other, CPU) &&
	     saakm_join(victim, id, 0) == 0 && saakm_join(other, id, 0) == 0;
	snprintf(val, sizeof(val), "%d", victim);
	ok = ok && !write_file(FAULTY "victim", val);
	TAP_CHECK(ok, "two spinners on CPU 0 joined faulty; one is the victim");
	usleep(100000);

	write_file(FAULTY "armed", "1");
	ms = wait_ejected("faulty", reason, sizeof(reason), TIMEOUT_MS + SLACK_MS + 5000);
	printf("# starve on CPU 0, the watchdog's CPU: ejected after %ld ms: %s\n", ms, reason);
	TAP_CHECK(ms >= 0 && ms <= TIMEOUT_MS + SLACK_MS, "ejected within the timeout + 1 s");
	TAP_CHECK(strstr(reason, "stall") != NULL, "the reason is a stall");

	*stop = 1;
	TAP_CHECK(reaped_ok(victim) && reaped_ok(other), "both spinners finish");
	TAP_CHECK(unload_module("saakm_faulty") == 0, "rmmod saakm_faulty");
	return tap_done();	/* the cleanup restores the timeout and the cpumask */
}
