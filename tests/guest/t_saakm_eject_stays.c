// SPDX-License-Identifier: GPL-2.0
/*
 * An ejected policy stays ejected while rmmod drains it.
 * Before the fix, saakm_unregister_policy() overwrote EJECTED with
 * DISABLING, so the class called the faulty policy's callbacks again for
 * every task the drain had not reached yet. Here SysRq-K ejects fifo while
 * 1000 tasks are attached (300 in make test's debug pass, where the drain
 * of 1000 takes about 50 s), so that the ejection's drain takes a while,
 * rmmod starts at once, and /proc/saakm/policies is read until rmmod
 * returns: the row must never go from "ejected" to "disabling".
 */
#include "saakm_test.h"

SAAKM_TAG("timeout=180");

#define MAX_TASKS	1000
#define FIFO		"policies/fifo/saakm_fifo.ko"

static pid_t kids[MAX_TASKS];

int main(void)
{
	int id, joined = 0, ejected = 0, disabling = 0, exited = 0, status;
	char state[32];
	pid_t rm, r = 0;
	double t0, limit = 30.0 * timeout_scale();	/* the drain is slow on the debug kernel */
	int nr_tasks = tier_size("SAAKM_EJECT_TASKS", debug_pass() ? 300 : MAX_TASKS, MAX_TASKS);

	if (nr_tasks > MAX_TASKS)
		nr_tasks = MAX_TASKS;
	stop_init();
	id = load_policy("fifo", FIFO, NULL);
	TAP_CHECK(id > 0, "fifo loaded");
	if (id <= 0)
		return tap_done();

	for (int i = 0; i < nr_tasks; i++) {
		kids[i] = spawn(sleeper, 20000);
		joined += kids[i] > 0 && saakm_join(kids[i], id, 0) == 0;
	}
	TAP_CHECK(joined == nr_tasks, "the sleepers joined fifo");

	TAP_CHECK(write_file("/proc/sysrq-trigger", "K") == 0, "SysRq-K");
	t0 = now_s();
	while (now_s() - t0 < 3 && !ejected) {
		policy_state("fifo", state, sizeof(state));
		ejected = !strcmp(state, saakm_policy_state_names[SAAKM_POLICY_EJECTED]);
	}
	TAP_CHECK(ejected, "fifo ejected");

	/* rmmod while the ejection still moves tasks to SCHED_NORMAL */
	rm = fork();
	if (rm == 0)
		_exit(syscall(SYS_delete_module, "saakm_fifo", O_NONBLOCK) ? errno : 0);
	t0 = now_s();
	while (now_s() - t0 < limit && (r = waitpid(rm, &status, WNOHANG)) == 0) {
		policy_state("fifo", state, sizeof(state));
		if (!strcmp(state, saakm_policy_state_names[SAAKM_POLICY_DISABLING])) {
			disabling = 1;
			printf("# fifo shown as 'disabling' %.0f ms into rmmod\n",
			       (now_s() - t0) * 1000);
			break;
		}
	}
	TAP_CHECK(!disabling, "the ejected policy stays ejected (bypassed) during rmmod");
	if (r == 0)
		r = reap_within(rm, limit, &status) ? -1 : rm;
	printf("# rmmod took %.1f s\n", now_s() - t0);
	TAP_CHECK(r == rm && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "rmmod returns");

	*stop = 1;
	reap_all_within(kids, nr_tasks, 30, &exited);
	TAP_CHECK(exited == nr_tasks, "every sleeper finishes");
	return tap_done();
}
