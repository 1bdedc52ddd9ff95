// SPDX-License-Identifier: GPL-2.0
/*
 * A zombie cannot join a policy. A child exits and is
 * kept a zombie with waitid(WNOWAIT); sched_setattr() moving it to fifo must
 * fail with ESRCH. Once it is reaped, fifo has no task left and unloads
 * within 10 s. Before the fix the setattr succeeded, the freed task stayed
 * on the policy's list, and rmmod spun for ever: rmmod runs in a child here,
 * so a hung unload fails the test instead of hanging it.
 */
#include "saakm_test.h"

SAAKM_TAG("timeout=60");

static int fifo_loaded_here;

static void cleanup(void)
{
	/* A stuck unload leaves the module "going": nothing more to do then. */
	if (fifo_loaded_here && module_loaded("saakm_fifo") &&
	    unload_module_within("saakm_fifo", 10, NULL) == -ETIMEDOUT)
		printf("# cleanup: rmmod saakm_fifo still running after 10 s\n");
}

int main(void)
{
	siginfo_t si;
	double secs = 0;
	int id, ret, status, tasks = -1;
	pid_t pid;

	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	TAP_CHECK(id > 0, "fifo loaded");
	if (id <= 0)
		return tap_done();
	fifo_loaded_here = 1;
	atexit(cleanup);

	pid = fork();
	if (pid == 0)
		_exit(0);
	memset(&si, 0, sizeof(si));
	ret = waitid(P_PID, pid, &si, WEXITED | WNOWAIT);
	TAP_CHECK(ret == 0 && si.si_pid == pid, "child exited, kept as a zombie");

	ret = saakm_join(pid, id, 0);
	printf("# sched_setattr(zombie %d, SCHED_SAAKM, fifo) = %d (%s)\n", pid, ret,
	       ret ? strerror(-ret) : "success");
	if (ret == -ESRCH)
		tap_ok("a zombie cannot join a policy (ESRCH)");
	else
		tap_not_ok("a zombie cannot join a policy (ESRCH)", "setattr returned %d", ret);

	TAP_CHECK(waitpid(pid, &status, 0) == pid, "zombie reaped");
	for (int t = 0; t < 200 && (tasks = policy_tasks("fifo")) != 0; t++)
		usleep(10000);
	if (tasks == 0)
		tap_ok("fifo has no task after the reap");
	else
		tap_not_ok("fifo has no task after the reap", "tasks column reads %d", tasks);

	ret = unload_module_within("saakm_fifo", 10, &secs);
	printf("# rmmod saakm_fifo: %d after %.2f s\n", ret, secs);
	if (ret == -ETIMEDOUT)
		tap_not_ok("rmmod saakm_fifo returns within 10 s", "still running after %.1f s", secs);
	else
		TAP_CHECK(ret == 0, "rmmod saakm_fifo returns within 10 s");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
