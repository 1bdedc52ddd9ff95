// SPDX-License-Identifier: GPL-2.0
/*
 * Every task forked into a policy gets new_prepare before new_place, also
 * when it is pinned to one CPU (6.12 skips
 * select_task_rq for such tasks, and with it new_prepare). A task of the
 * policy forks 10 children, first free to run anywhere, then pinned to one
 * CPU as with "taskset -c 1"; the policy's event counters in
 * /proc/saakm/events must then show as many new_prepare as new_place calls
 * for those forks. Before the fix the pinned forks showed new_prepare=0
 * new_place=10. The policy is saakm_faulty with no fault armed (a FIFO that
 * implements new_prepare), so the test does not depend on saakm_probe.
 */
#include "saakm_test.h"
#include <signal.h>

SAAKM_TAG("timeout=60");

#define NR_FORKS	10

static int loaded_here;

static void cleanup(void)
{
	if (loaded_here && module_loaded("saakm_faulty"))
		unload_module_within("saakm_faulty", 10, NULL);
}

/* new_prepare and new_place calls the class made to faulty so far. */
static int policy_counts(unsigned long *prepare, unsigned long *place)
{
	long long pr = event_count("faulty", "new_prepare");
	long long pl = event_count("faulty", "new_place");

	if (pr < 0 || pl < 0)
		return -1;
	*prepare = pr;
	*place = pl;
	return 0;
}

/* In the policy: fork NR_FORKS children that check they are SaaKM tasks. */
static int forker(int to_parent, int from_parent)
{
	int ok = 1, status;
	char c = 'r';

	if (write(to_parent, &c, 1) != 1 || read(from_parent, &c, 1) != 1)
		return 2;
	for (int i = 0; i < NR_FORKS; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(sched_getscheduler(0) == SCHED_SAAKM ? 0 : 1);
		ok &= pid > 0 && waitpid(pid, &status, 0) == pid &&
		      WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	return ok ? 0 : 1;
}

/* Fork from a task of the policy pinned to @cpu (-1: not pinned). */
static void forks(int id, int cpu)
{
	unsigned long prep0 = 0, place0 = 0, prep1 = 0, place1 = 0;
	int up[2], down[2], status = -1, ok;
	char desc[128], where[32], c;
	pid_t pid;

	if (pipe(up) || pipe(down)) {
		tap_not_ok("pipes", "%s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		for (int i = 0; i < nr_cpus(); i++)
			if (cpu < 0 || i == cpu)
				CPU_SET(i, &set);
		if (sched_setaffinity(0, sizeof(set), &set) || saakm_join(0, id, 0))
			_exit(3);
		_exit(forker(up[1], down[0]));
	}
	close(up[1]);
	close(down[0]);
	/* The forker is in the policy now: count only its forks. */
	ok = read(up[0], &c, 1) == 1 && !policy_counts(&prep0, &place0);
	c = 'g';
	ok &= write(down[1], &c, 1) == 1;
	ok &= reap_within(pid, 20, &status) == 0 && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0;
	ok &= !policy_counts(&prep1, &place1);
	close(up[0]);
	close(down[1]);
	if (pid > 0 && !ok) {
		kill(pid, SIGKILL);
		reap_within(pid, 5, &status);
	}

	if (cpu < 0)
		snprintf(where, sizeof(where), "unpinned");
	else
		snprintf(where, sizeof(where), "pinned to cpu %d", cpu);
	snprintf(desc, sizeof(desc), "%s: %d forks ran as SaaKM tasks", where, NR_FORKS);
	TAP_CHECK(ok, desc);
	printf("# %s: new_prepare=%lu new_place=%lu\n", where, prep1 - prep0, place1 - place0);
	snprintf(desc, sizeof(desc), "%s: new_prepare count equals new_place count", where);
	if (ok && prep1 - prep0 == NR_FORKS && place1 - place0 == NR_FORKS)
		tap_ok(desc);
	else
		tap_not_ok(desc, "new_prepare=%lu new_place=%lu for %d forks",
			   prep1 - prep0, place1 - place0, NR_FORKS);
}

int main(void)
{
	int id = load_policy("faulty", "tests/modules/saakm_faulty/saakm_faulty.ko", NULL);

	TAP_CHECK(id > 0, "faulty loaded (no fault armed)");
	if (id <= 0)
		return tap_done();
	loaded_here = 1;
	atexit(cleanup);

	forks(id, -1);
	forks(id, nr_cpus() - 1);
	TAP_CHECK(unload_module_within("saakm_faulty", 10, NULL) == 0, "faulty unloads");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
