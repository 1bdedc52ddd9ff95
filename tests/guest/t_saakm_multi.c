// SPDX-License-Identifier: GPL-2.0
/*
 * Several policies at once, and unloading under load: tasks in two policies
 * (fifo and the probe test policy); rmmod of one moves only its tasks back to
 * SCHED_NORMAL. Then 200 tasks on fifo while it is unloaded: none is lost,
 * all end in SCHED_NORMAL and finish.
 */
#include "saakm_test.h"
#include <signal.h>
#include <sys/mman.h>

#define NR_LOAD 200

static pid_t spawn_in(int id)
{
	pid_t pid = spawn(sleeper, 20000);

	if (pid > 0 && saakm_join(pid, id, 0)) {
		kill(pid, SIGKILL);
		return -1;
	}
	return pid;
}

static int all_policy(pid_t *pids, int n, int policy)
{
	for (int i = 0; i < n; i++)
		if (sched_getscheduler(pids[i]) != policy)
			return 0;
	return 1;
}

static int reap_all(pid_t *pids, int n)
{
	int ok = 1;

	for (int i = 0; i < n; i++)
		ok &= reaped_ok(pids[i]);
	return ok;
}

static void two_policies(void)
{
	int fifo = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	int probe = load_policy("probe", "tests/modules/saakm_probe/saakm_probe.ko", NULL);
	pid_t a[4], b[4];

	TAP_CHECK(fifo > 0 && probe > 0 && fifo != probe, "fifo and probe loaded with distinct ids");
	if (fifo <= 0 || probe <= 0)
		return;
	*stop = 0;
	for (int i = 0; i < 4; i++) {
		a[i] = spawn_in(fifo);
		b[i] = spawn_in(probe);
	}
	TAP_CHECK(policy_tasks("fifo") == 4 && policy_tasks("probe") == 4,
		  "4 tasks in each policy");
	TAP_CHECK(unload_module("saakm_probe") == 0, "rmmod saakm_probe with 4 tasks attached");
	TAP_CHECK(all_policy(b, 4, SCHED_OTHER), "probe's tasks are back in SCHED_NORMAL");
	TAP_CHECK(all_policy(a, 4, SCHED_SAAKM) && policy_tasks("fifo") == 4,
		  "fifo's tasks are untouched");
	*stop = 1;
	TAP_CHECK(reap_all(a, 4) && reap_all(b, 4), "all 8 tasks finish");
	TAP_CHECK(unload_module("saakm_fifo") == 0, "rmmod saakm_fifo");
}

static void rmmod_under_load(void)
{
	pid_t pids[NR_LOAD];
	int fifo = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	int started = 0;

	TAP_CHECK(fifo > 0, "fifo loaded again");
	if (fifo <= 0)
		return;
	*stop = 0;
	for (int i = 0; i < NR_LOAD; i++) {
		pids[i] = spawn_in(fifo);
		started += pids[i] > 0;
	}
	TAP_CHECK(started == NR_LOAD && policy_tasks("fifo") == NR_LOAD,
		  "200 sleep/wake tasks attached to fifo");
	usleep(200000);
	TAP_CHECK(unload_module("saakm_fifo") == 0, "rmmod saakm_fifo under load");
	TAP_CHECK(all_policy(pids, NR_LOAD, SCHED_OTHER), "all 200 tasks now in SCHED_NORMAL");
	*stop = 1;
	TAP_CHECK(reap_all(pids, NR_LOAD), "all 200 tasks finish: none lost");
}

int main(void)
{
	stop_init();
	tap_subtest("two policies");
	two_policies();
	tap_subtest("rmmod under load");
	rmmod_under_load();
	return tap_done();
}
