// SPDX-License-Identifier: GPL-2.0
/*
 * Policies at scale, under CPU hotplug. fifo, wfq and the eevdf port each
 * run SAAKM_SCALE_TASKS threads of mixed behaviour (a quarter CPU hogs, half
 * in pipe pairs that pass a byte back and forth, a quarter sleepers that
 * work a little between short sleeps) for SAAKM_SCALE_SECS seconds, while
 * every CPU but CPU 0 goes offline and back online SAAKM_SCALE_CYCLES times.
 * For each policy:
 *   - every thread finishes, and the policy has no task left (none lost);
 *   - the policy is still enabled, with no error and nothing refused;
 *   - every hog ran at least once in every 2 s: its longest gap between two
 *     turns of its loop (time runnable but not running) is under 2 s.
 * Kernel reports (WARN, lockdep, ...) fail the run through the runner.
 *
 * On a guest of 2 or more LLCs with 8 CPUs or more (the epyc8 shape), the
 * balancing policies (wfq, eevdf) then get 4 hogs per CPU at once: after
 * they settle, each CPU runs 4 +- 1 of them, and over 10 s each gets its
 * fair share of a CPU (a quarter) +- 10 points.
 *
 * Sizes: make test runs the shapes' small version (and a smaller one on the
 * debug kernel); make test-full the soak: 1,000 threads, 60 s, 20 cycles.
 * saakm-test: opt-in (the shape passes run it by name)
 */
#include "saakm_test.h"
#include <pthread.h>
#include <stdatomic.h>

SAAKM_TAG("opt-in");
SAAKM_TAG("timeout=1500");

#define MAX_GAP_S	2.0
#define BAL_PER_CPU	4
#define BAL_SECS	10

enum kind { HOG, PIPE_A, PIPE_B, SLEEPER };

struct worker {
	pthread_t th;
	pid_t tid;
	enum kind kind;
	int fd_in, fd_out;	/* pipe pairs: read from, write to */
	int joined;
	long turns;
	double max_gap;
};

struct policy {
	const char *name, *path, *module;
	int balances;		/* checked for balance on a multi-LLC guest */
};

static const struct policy policies[] = {
	{ "fifo", "policies/fifo/saakm_fifo.ko", "saakm_fifo", 0 },
	{ "wfq", "policies/wfq/saakm_wfq.ko", "saakm_wfq", 1 },
	{ "eevdf", "policies/eevdf/saakm_eevdf.ko", "saakm_eevdf", 1 },
};

static struct worker *workers;
static int policy;
static atomic_int started, finished;
static volatile int go, stop_all;

/* A hog: spin, keeping the longest time between two turns of the loop. */
static void hog(struct worker *w)
{
	double last = now_s(), t;

	while (!stop_all) {
		t = now_s();
		if (go && t - last > w->max_gap)
			w->max_gap = t - last;
		last = t;
		w->turns++;
	}
}

/* One side of a pipe pair: A writes first, B answers; either end closing stops both. */
static void pipe_side(struct worker *w)
{
	char c = 0;

	if (w->kind == PIPE_A && write(w->fd_out, &c, 1) != 1)
		return;
	while (!stop_all) {
		if (read(w->fd_in, &c, 1) != 1)
			break;
		w->turns++;
		if (write(w->fd_out, &c, 1) != 1)
			break;
	}
}

/* A sleeper: about 100 us of work, then 1..8 ms asleep. */
static void sleeper_loop(struct worker *w)
{
	long i = w - workers;

	while (!stop_all) {
		spin_for(0.0001);
		usleep(1000 + (i * 7919 + w->turns * 104729) % 7000);
		w->turns++;
	}
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	w->joined = saakm_join(0, policy, 0) == 0;
	atomic_fetch_add(&started, 1);
	while (!go && !stop_all)
		usleep(1000);
	switch (w->kind) {
	case HOG:
		hog(w);
		break;
	case PIPE_A:
	case PIPE_B:
		pipe_side(w);
		break;
	case SLEEPER:
		sleeper_loop(w);
		break;
	}
	if (w->kind == PIPE_A || w->kind == PIPE_B) {
		close(w->fd_in);
		close(w->fd_out);
	}
	atomic_fetch_add(&finished, 1);
	return NULL;
}

/* Thread @i's behaviour: hog, pipe pair (two in a row), sleeper. */
static int setup_worker(int i)
{
	struct worker *w = &workers[i];
	int ab[2], ba[2];

	w->kind = (enum kind)(i % 4);
	if (w->kind != PIPE_A)
		return 0;
	if (pipe(ab) || pipe(ba))
		return -1;
	w->fd_out = ab[1];
	w->fd_in = ba[0];
	workers[i + 1].fd_in = ab[0];
	workers[i + 1].fd_out = ba[1];
	return 0;
}

/* Start @n workers under the current policy; returns how many started. */
static int start_workers(int n)
{
	pthread_attr_t attr;
	int created = 0;
	double t0 = now_s();

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	atomic_store(&started, 0);
	atomic_store(&finished, 0);
	go = stop_all = 0;
	for (int i = 0; i < n; i++) {
		if (pthread_create(&workers[i].th, &attr, worker_fn, &workers[i]))
			break;
		created++;
	}
	while (atomic_load(&started) < created && now_s() - t0 < 120.0 * timeout_scale())
		usleep(10000);
	return created;
}

/* Stop the workers; true if all @created finished within the limit (then joined). */
static int stop_workers(int created)
{
	double t0 = now_s();

	stop_all = 1;
	while (atomic_load(&finished) < created && now_s() - t0 < 60.0 * timeout_scale())
		usleep(10000);
	if (atomic_load(&finished) < created) {
		for (int i = 0; i < created; i++)
			if (task_runtime_ns(workers[i].tid) >= 0)
				printf("# thread %d (kind %d) did not finish; it is on cpu %d\n",
				       workers[i].tid, workers[i].kind, task_cpu_of(workers[i].tid));
		return 0;
	}
	for (int i = 0; i < created; i++)
		pthread_join(workers[i].th, NULL);
	return 1;
}

/* Every CPU but 0 offline and back, @cycles times; returns the operations that failed. */
static int hotplug_cycles(int cycles, int ncpus)
{
	int failed = 0;

	for (int c = 0; c < cycles; c++)
		for (int cpu = 1; cpu < ncpus; cpu++) {
			failed += set_cpu_online(cpu, 0) != 0;
			failed += set_cpu_online(cpu, 1) != 0;
		}
	return failed;
}

/* Is the policy still enabled with no error? Prints the error if any. */
static int policy_healthy(const char *name)
{
	char reason[256];

	if (!policy_error(name, reason, sizeof(reason))) {
		printf("# %s was ejected: %s\n", name, reason);
		return 0;
	}
	return policy_enabled(name);
}

static void scale_run(const struct policy *pol, int nr, double secs, int cycles, int ncpus)
{
	int created, ok, bad_ops;
	double t0, worst = 0;
	long turns[4] = { 0 };

	tap_subtest(pol->name);
	policy = load_policy(pol->name, pol->path, NULL);
	TAP_CHECKF(policy > 0, "%s loaded", pol->name);
	if (policy <= 0)
		return;
	memset(workers, 0, nr * sizeof(*workers));
	for (int i = 0; i < nr; i++)
		if (setup_worker(i))
			nr = i;
	created = start_workers(nr);
	ok = created == nr;
	for (int i = 0; i < created; i++)
		ok &= workers[i].joined;
	TAP_CHECKF(ok, "%d threads joined %s (hogs, pipe pairs, sleepers)", nr, pol->name);

	t0 = now_s();
	go = 1;
	bad_ops = hotplug_cycles(cycles, ncpus);
	TAP_CHECKF(!bad_ops, "CPUs 1..%d offline and online %d time(s) each while they ran",
		  ncpus - 1, cycles);
	while (now_s() - t0 < secs)
		usleep(100000);
	printf("# ran %.1f s with hotplug\n", now_s() - t0);
	TAP_CHECK(stop_workers(created), "every thread finished");
	TAP_CHECKF(wait_drained(pol->name, 10.0 * timeout_scale()) >= 0,
		  "%s has no task left", pol->name);
	for (int i = 0; i < created; i++) {
		turns[workers[i].kind] += workers[i].turns;
		if (workers[i].kind == HOG && workers[i].max_gap > worst)
			worst = workers[i].max_gap;
	}
	printf("# turns: hogs %ld, pipe round trips %ld, sleeper wakeups %ld\n",
	       turns[HOG], turns[PIPE_A], turns[SLEEPER]);
	TAP_CHECK(turns[PIPE_A] > 0 && turns[SLEEPER] > 0, "pipe pairs and sleepers made progress");
	TAP_CHECKF(worst < MAX_GAP_S, "every hog ran at least once in every %.0f s (longest gap %.3f s)",
	       MAX_GAP_S, worst);
	TAP_CHECKF(policy_healthy(pol->name) && saakm_log_clean(), "%s still enabled, no error",
		  pol->name);
	TAP_CHECKF(unload_module_within(pol->module, 60.0 * timeout_scale(), NULL) == 0,
		  "%s unloaded", pol->name);
}

/* 4 hogs per CPU: placed 4 +- 1 per CPU, each with its fair share +- 10 points. */
static void balance_run(const struct policy *pol, int ncpus)
{
	int nr = BAL_PER_CPU * ncpus, per_cpu[CPU_SETSIZE] = { 0 }, created, lo = nr, hi = 0;
	long long before[CPU_SETSIZE], ns;
	double share, min_share = 1, max_share = 0, fair = 1.0 / BAL_PER_CPU;

	tap_subtest("balance");
	policy = load_policy(pol->name, pol->path, NULL);
	TAP_CHECKF(policy > 0, "%s loaded", pol->name);
	if (policy <= 0)
		return;
	memset(workers, 0, nr * sizeof(*workers));	/* kind 0: all hogs */
	created = start_workers(nr);
	go = 1;
	sleep(5);	/* let the balancing settle */
	for (int i = 0; i < created; i++) {
		int cpu = task_cpu_of(workers[i].tid);

		if (cpu >= 0 && cpu < CPU_SETSIZE)
			per_cpu[cpu]++;
		before[i] = task_runtime_ns(workers[i].tid);
	}
	for (int c = 0; c < ncpus; c++) {
		lo = per_cpu[c] < lo ? per_cpu[c] : lo;
		hi = per_cpu[c] > hi ? per_cpu[c] : hi;
	}
	TAP_CHECKF(created == nr && lo >= BAL_PER_CPU - 1 && hi <= BAL_PER_CPU + 1,
		  "%s: %d hogs on %d CPUs, %d to %d per CPU (want %d +- 1)", pol->name, nr,
		  ncpus, lo, hi, BAL_PER_CPU);
	sleep(BAL_SECS);
	for (int i = 0; i < created; i++) {
		ns = task_runtime_ns(workers[i].tid) - before[i];
		share = ns / (BAL_SECS * 1e9);
		min_share = share < min_share ? share : min_share;
		max_share = share > max_share ? share : max_share;
	}
	TAP_CHECKF(min_share >= fair - 0.1 && max_share <= fair + 0.1,
		  "%s: each hog got %.0f%% +- 10 points of a CPU over %d s (%.1f%% to %.1f%%)",
		  pol->name, fair * 100, BAL_SECS, min_share * 100, max_share * 100);
	TAP_CHECKF(stop_workers(created), "%s: every hog finished", pol->name);
	TAP_CHECKF(policy_healthy(pol->name), "%s still enabled, no error", pol->name);
	unload_module_within(pol->module, 60.0 * timeout_scale(), NULL);
}

/* Distinct LLCs among the online CPUs, from sysfs. */
static int nr_llcs(int ncpus)
{
	char path[128], first[64], seen[CPU_SETSIZE] = { 0 };
	int n = 0;

	for (int cpu = 0; cpu < ncpus; cpu++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", cpu);
		if (read_first_line(path, first, sizeof(first)))
			continue;
		int id = atoi(first);	/* the LLC's lowest CPU */

		if (id >= 0 && id < CPU_SETSIZE && !seen[id]++)
			n++;
	}
	return n;
}

int main(void)
{
	int ncpus = nr_cpus(), debug = debug_pass();
	int nr = tier_size("SAAKM_SCALE_TASKS", debug ? 64 : 200, 1000);
	double secs = tier_size("SAAKM_SCALE_SECS", debug ? 5 : 10, 60);
	int cycles = tier_size("SAAKM_SCALE_CYCLES", 1, 20);
	/* to look at one part: bit 0 scale, bit 1 balance; bits 0..2: fifo, wfq, eevdf */
	int parts = tier_size("SAAKM_SCALE_PARTS", 3, 3);
	int which = tier_size("SAAKM_SCALE_POLICIES", 7, 7);

	require_cpus(4, "scale and hotplug");
	signal(SIGPIPE, SIG_IGN);	/* a pipe pair's partner closes its end at the stop */
	nr -= nr % 4;
	workers = calloc(nr > BAL_PER_CPU * ncpus ? nr : BAL_PER_CPU * ncpus, sizeof(*workers));
	if (!workers)
		return 1;
	printf("# %d CPUs, %d LLCs; %d threads for %.0f s, %d hotplug cycle(s) per CPU\n",
	       ncpus, nr_llcs(ncpus), nr, secs, cycles);
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if ((parts & 1) && (which & (1 << i)))
			scale_run(&policies[i], nr, secs, cycles, ncpus);
	if (ncpus >= 8 && nr_llcs(ncpus) >= 2 && !debug)
		for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
			if ((parts & 2) && (which & (1 << i)) && policies[i].balances)
				balance_run(&policies[i], ncpus);
	return tap_done();
}
