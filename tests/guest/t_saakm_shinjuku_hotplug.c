// SPDX-License-Identifier: GPL-2.0
/*
 * 500 tasks under saakm_shinjuku, with the last CPU taken offline and back
 * in the middle (issue 11): the policy keeps every task in its one global
 * queue and moves them between CPUs itself (newly_idle + balance_pick), so
 * a task queued on a CPU that goes away must be moved, not lost. Each task
 * spins ~100 µs and sleeps 1..5 ms in a loop. Checks: no ejection, every
 * task made progress after the CPU went down and again after it came back,
 * every task finishes, and the policy has no task left.
 */
#include "saakm_test.h"
#include <pthread.h>
#include <stdatomic.h>

SAAKM_TAG("timeout=300");
/* Opt-in until it has passed 5 runs on the final code (the house rule for new tests). */
SAAKM_TAG("opt-in");

#define NR_TASKS	500
#define SJ_KO		"policies/shinjuku/saakm_shinjuku.ko"

static pthread_t threads[NR_TASKS];
static atomic_long iters[NR_TASKS];
static atomic_int joined, finished;
static volatile int done;
static int policy;

static void *task_fn(void *arg)
{
	long i = (long)arg;

	if (saakm_join(0, policy, 0) == 0)
		atomic_fetch_add(&joined, 1);
	while (!done) {
		spin_for(0.0001);
		usleep(1000 + (i * 7919) % 4000);
		atomic_fetch_add(&iters[i], 1);
	}
	atomic_fetch_add(&finished, 1);
	return NULL;
}

static void snapshot(long *out)
{
	for (int i = 0; i < NR_TASKS; i++)
		out[i] = atomic_load(&iters[i]);
}

/* How many tasks did not advance since @before? */
static int stuck_since(const long *before)
{
	int n = 0;

	for (int i = 0; i < NR_TASKS; i++)
		n += atomic_load(&iters[i]) == before[i];
	return n;
}

/*
 * Put CPU @cpu offline (@on 0) or back online, then give the tasks 2 s
 * (times @scale): return how many of them made no progress meanwhile, or
 * NR_TASKS if the CPU could not be switched.
 */
static int hotplug_phase(int cpu, int on, int scale)
{
	static long before[NR_TASKS];

	snapshot(before);
	if (set_cpu_online(cpu, on)) {
		printf("# could not set CPU %d online=%d\n", cpu, on);
		return NR_TASKS;
	}
	sleep(2 * scale);
	return stuck_since(before);
}

int main(void)
{
	int ncpus = nr_cpus(), last = ncpus - 1, stuck, scale = timeout_scale();
	double t0;
	char reason[256];

	if (ncpus < 2) {
		tap_skip("shinjuku under hotplug", "needs 2 CPUs");
		return tap_done();
	}
	policy = load_policy("shinjuku", SJ_KO, NULL);
	TAP_CHECK(policy > 0, "saakm_shinjuku loaded");
	for (long i = 0; i < NR_TASKS; i++)
		pthread_create(&threads[i], NULL, task_fn, (void *)i);
	t0 = now_s();
	while (atomic_load(&joined) < NR_TASKS && now_s() - t0 < 30.0 * scale)
		usleep(10000);
	printf("# %d of %d tasks joined\n", atomic_load(&joined), NR_TASKS);
	TAP_CHECK(atomic_load(&joined) == NR_TASKS, "all 500 tasks joined shinjuku");

	sleep(2);
	stuck = hotplug_phase(last, 0, scale);
	printf("# %d tasks made no progress while the CPU was offline\n", stuck);
	TAP_CHECK(stuck == 0, "every task ran while the CPU was offline");
	stuck = hotplug_phase(last, 1, scale);
	printf("# %d tasks made no progress after the CPU came back\n", stuck);
	TAP_CHECK(stuck == 0, "every task ran after the CPU came back");

	reason[0] = 0;
	if (policy_error("shinjuku", reason, sizeof(reason)) == 0 && reason[0])
		printf("# shinjuku error: %s\n", reason);
	TAP_CHECK(policy_enabled("shinjuku") && !reason[0], "shinjuku was not ejected");
	done = 1;
	t0 = now_s();
	while (atomic_load(&finished) < NR_TASKS && now_s() - t0 < 30.0 * scale)
		usleep(10000);
	printf("# %d of %d tasks finished\n", atomic_load(&finished), NR_TASKS);
	TAP_CHECK(atomic_load(&finished) == NR_TASKS, "every task finished");
	for (int i = 0; i < NR_TASKS && atomic_load(&finished) == NR_TASKS; i++)
		pthread_join(threads[i], NULL);
	TAP_CHECK(policy_tasks("shinjuku") == 0, "shinjuku has no task left");
	TAP_CHECK(unload_module("saakm_shinjuku") == 0, "rmmod saakm_shinjuku");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
