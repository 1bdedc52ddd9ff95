// SPDX-License-Identifier: GPL-2.0
/*
 * 500 tasks under saakm_shinjuku, with the last CPU taken offline and back
 * three times: the policy keeps every task in its one global
 * queue and moves them between CPUs itself (newly_idle + balance_pick), so
 * a task queued on a CPU that goes away must be moved, not lost, and one
 * placed on a CPU that came back must run there. Each task spins ~100 µs
 * and sleeps 1..5 ms in a loop: more work than the CPUs have, so every CPU
 * always has tasks waiting and every slice ends in a preemption. Checks: no
 * ejection, every task made progress within 2 s while the CPU was down and
 * again after it came back, in every cycle, every task finishes, and the
 * policy has no task left. When tasks made no progress, the test prints
 * where they are (state and last CPU) and each CPU's /proc/saakm/cpus line
 * and idle time: with the 30 µs slice ending before a slow switch was done,
 * such a stall once had every task put back as it came in, under host load
 * (docs/benchmarks.md, "Shinjuku on a slow machine").
 */
#include "saakm_test.h"
#include <pthread.h>
#include <stdatomic.h>

SAAKM_TAG("timeout=300");

#define NR_TASKS	500
#define CYCLES		3
#define MAX_CPUS	64
#define SJ_KO		"policies/shinjuku/saakm_shinjuku.ko"

static pthread_t threads[NR_TASKS];
static atomic_long iters[NR_TASKS];
static atomic_int tids[NR_TASKS];
static atomic_int joined, finished;
static volatile int done;
static int policy;

static void *task_fn(void *arg)
{
	long i = (long)arg;

	atomic_store(&tids[i], (int)syscall(SYS_gettid));
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

/* Idle jiffies of each CPU (/proc/stat) into @idle[MAX_CPUS]. */
static void cpu_idle(long long *idle)
{
	long long v[5];
	char line[512];
	FILE *f = fopen("/proc/stat", "r");
	int cpu;

	memset(idle, 0, MAX_CPUS * sizeof(*idle));
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu%d %lld %lld %lld %lld %lld", &cpu, &v[0], &v[1], &v[2], &v[3],
			   &v[4]) == 6 && cpu >= 0 && cpu < MAX_CPUS)
			idle[cpu] = v[3] + v[4];
	if (f)
		fclose(f);
}

/* State letter of thread @tid (R, S, ...) into @st, its last CPU returned; -1. */
static int thread_cpu(int tid, char *st)
{
	char path[64], buf[1024], *p;
	int field, cpu = -1;
	FILE *f;

	*st = '?';
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (f && fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] && p[2]) {
		*st = p[2];
		for (field = 2; *p; p++)
			if (*p == ' ' && ++field == 39) {
				cpu = atoi(p + 1);
				break;
			}
	}
	if (f)
		fclose(f);
	return cpu;
}

/* The tasks that made no progress since @before: where they wait, and each CPU's state. */
static void show_stuck(const long *before, const long long *idle0)
{
	int runnable[MAX_CPUS] = { 0 }, sleeping[MAX_CPUS] = { 0 }, n;
	struct saakm_cpu_info ci[MAX_CPUS];
	long long idle[MAX_CPUS];

	cpu_idle(idle);
	for (int i = 0; i < NR_TASKS; i++) {
		char st;
		int cpu;

		if (atomic_load(&iters[i]) != before[i])
			continue;
		cpu = thread_cpu(atomic_load(&tids[i]), &st);
		if (cpu >= 0 && cpu < MAX_CPUS)
			(st == 'R' ? runnable : sleeping)[cpu]++;
	}
	n = saakm_cpus("shinjuku", ci, MAX_CPUS);
	for (int i = 0; i < n && i < MAX_CPUS; i++)
		if (ci[i].cpu >= 0 && ci[i].cpu < MAX_CPUS)
			printf("#   cpu %d: ready %lld, parked %lld, picks %lld, idle %lld jiffies in the phase; tasks without progress last there: %d runnable, %d not\n",
			       ci[i].cpu, ci[i].ready, ci[i].parked, ci[i].picks,
			       idle[ci[i].cpu] - idle0[ci[i].cpu], runnable[ci[i].cpu],
			       sleeping[ci[i].cpu]);
}

/*
 * Put CPU @cpu offline (@on 0) or back online; from then on, give the
 * tasks 2 s (times @scale) to all make progress: return how many did not,
 * or NR_TASKS if the CPU could not be switched.
 */
static int hotplug_phase(int cpu, int on, int scale)
{
	static long before[NR_TASKS];
	long long idle0[MAX_CPUS];
	double t0;
	int stuck;

	if (set_cpu_online(cpu, on)) {
		printf("# could not set CPU %d online=%d\n", cpu, on);
		return NR_TASKS;
	}
	snapshot(before);
	cpu_idle(idle0);
	t0 = now_s();
	do {
		usleep(50000);
		stuck = stuck_since(before);
	} while (stuck && now_s() - t0 < 2.0 * scale);
	if (stuck)
		show_stuck(before, idle0);
	/* the rest of the 2 s: the next phase starts from the same load */
	while (now_s() - t0 < 2.0)
		usleep(50000);
	return stuck;
}

int main(void)
{
	int last = nr_cpus() - 1, stuck, scale = timeout_scale(), off = 0, on = 0;
	double t0;
	char reason[256];

	setvbuf(stdout, NULL, _IOLBF, 0);	/* a timeout keeps what was said */
	require_cpus(2, "shinjuku under hotplug");
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
	for (int c = 1; c <= CYCLES; c++) {
		stuck = hotplug_phase(last, 0, scale);
		printf("# cycle %d: %d tasks made no progress while CPU %d was offline\n", c, stuck,
		       last);
		off += stuck != 0;
		stuck = hotplug_phase(last, 1, scale);
		printf("# cycle %d: %d tasks made no progress after it came back\n", c, stuck);
		on += stuck != 0;
	}
	TAP_CHECK(!off, "every task ran while the CPU was offline, in every cycle");
	TAP_CHECK(!on, "every task ran after the CPU came back, in every cycle");

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
