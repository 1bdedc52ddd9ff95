// SPDX-License-Identifier: GPL-2.0
/*
 * Ejecting a policy with many tasks attached: the watchdog and the bypass
 * pick must stay bounded. SAAKM_MANY_TASKS threads (10,000; 3,000 in make
 * test's debug pass, where 10,000 take 90 s) join saakm_faulty: 16 spin,
 * half of the others sleep and wake every 1..2 s, half wait on a condition
 * variable. After a few watchdog periods (default stall timeout) the "error
 * in tick" fault is armed. Then the policy must be ejected, drained within
 * a bound, every thread be back under SCHED_NORMAL, and every thread
 * finish. The runner fails the test on any soft-lockup, RCU-stall or
 * hung-task report. Prints how long each phase took.
 */
#include "saakm_test.h"
#include <pthread.h>
#include <stdatomic.h>

SAAKM_TAG("timeout=900");

#define NR_SPIN		16
#define SLEEP_US	2000000	/* sleepers wake every 1..2 s */
#define FAULTY		"tests/modules/saakm_faulty/saakm_faulty.ko"

struct worker {
	pthread_t th;
	pid_t tid;
	int joined;
	int normal_at_end;
};

static struct worker *workers;
static int nr_workers, policy;
static atomic_int started, finished;
static volatile int done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static char old_threads_max[32], old_pid_max[32];

/*
 * Latency probes: a SCHED_FIFO thread per CPU wakes every 2 ms and records
 * how late it woke, per phase (0: before any thread, the baseline; 1:
 * tasks attached, watchdog walking them; 2: ejection and drain). A long section with interrupts or preemption off
 * on a CPU shows up here.
 */
#define LAT_PERIOD_NS	2000000L
#define MAX_LAT_CPUS	64
static volatile int phase, lat_stop;
static double max_late_ms[MAX_LAT_CPUS][3];

static void *lat_fn(void *arg)
{
	long cpu = (long)arg;
	struct timespec next;

	pin_to(0, cpu);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!lat_stop) {
		struct timespec now;
		double late;
		int ph = phase;

		next.tv_nsec += LAT_PERIOD_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		late = (now.tv_sec - next.tv_sec) * 1e3 + (now.tv_nsec - next.tv_nsec) / 1e6;
		if (late > max_late_ms[cpu][ph])
			max_late_ms[cpu][ph] = late;
		if (late > LAT_PERIOD_NS / 1e6)	/* overran: start again from now */
			next = now;
	}
	return NULL;
}

/* Worst wake-up latency of the probes in phase @ph, in ms. */
static double worst_late(int ph)
{
	double worst = 0;

	for (int c = 0; c < MAX_LAT_CPUS; c++)
		if (max_late_ms[c][ph] > worst)
			worst = max_late_ms[c][ph];
	return worst;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	long i = w - workers;

	w->tid = gettid();
	w->joined = saakm_join(0, policy, 0) == 0;
	atomic_fetch_add(&started, 1);
	if (i < NR_SPIN) {
		/*
		 * Spin only once every thread has joined: a thread that joins
		 * while running is queued (new_place), and behind 16 spinners
		 * served from the 5% deadline-server share (the creating thread
		 * keeps the fair class busy) the join phase took 172 s once.
		 */
		while (!done && atomic_load(&started) < nr_workers)
			usleep(1000);
		while (!done)
			;
	} else if (i % 2 == 0) {
		pthread_mutex_lock(&lock);
		while (!done)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
	} else {
		while (!done)
			usleep(SLEEP_US / 2 + (i * 7919) % (SLEEP_US / 2));
	}
	w->normal_at_end = sched_getscheduler(0) == SCHED_OTHER;
	atomic_fetch_add(&finished, 1);
	return NULL;
}

/* Make room for @n more threads (threads-max is about 8,000 in 1 GiB). */
static void raise_limits(int n)
{
	char v[32];

	read_first_line("/proc/sys/kernel/threads-max", old_threads_max, sizeof(old_threads_max));
	read_first_line("/proc/sys/kernel/pid_max", old_pid_max, sizeof(old_pid_max));
	snprintf(v, sizeof(v), "%d", 2 * n + 4096);
	if (atoi(old_threads_max) < 2 * n + 4096)
		write_file("/proc/sys/kernel/threads-max", v);
	if (atoi(old_pid_max) < 2 * n + 4096)
		write_file("/proc/sys/kernel/pid_max", v);
}

static void cleanup(void)
{
	if (module_loaded("saakm_faulty"))
		unload_module_within("saakm_faulty", 120, NULL);
	if (old_threads_max[0])
		write_file("/proc/sys/kernel/threads-max", old_threads_max);
	if (old_pid_max[0])
		write_file("/proc/sys/kernel/pid_max", old_pid_max);
}

int main(void)
{
	const char *scale_env = getenv("SAAKM_TIMEOUT_SCALE");
	int scale = scale_env && atoi(scale_env) > 0 ? atoi(scale_env) : 1;
	double drain_bound = 30.0 * scale, t0, t_create, t_drain = -1, t_finish;
	int created = 0, joined = 0, normal = 0, normal_end = 0, ret;
	char reason[256] = "", desc[160];
	pthread_attr_t attr, rt;
	struct sched_param sp = { .sched_priority = 50 };
	pthread_t lat[MAX_LAT_CPUS];
	int nr_lat = nr_cpus() < MAX_LAT_CPUS ? nr_cpus() : MAX_LAT_CPUS;
	long ms;

	nr_workers = tier_size("SAAKM_MANY_TASKS", debug_pass() ? 3000 : 10000, 10000);
	workers = calloc(nr_workers, sizeof(*workers));
	if (!workers)
		return 1;
	atexit(cleanup);
	raise_limits(nr_workers);

	ret = module_load(FAULTY, "fault=error in=tick");
	policy = policy_id("faulty");
	TAP_CHECK(ret == 0 && policy > 0, "faulty loaded");
	if (policy <= 0)
		return tap_done();

	pthread_attr_init(&rt);
	pthread_attr_setinheritsched(&rt, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&rt, SCHED_FIFO);
	pthread_attr_setschedparam(&rt, &sp);
	for (long c = 0; c < nr_lat; c++)
		if (pthread_create(&lat[c], &rt, lat_fn, (void *)c))
			nr_lat = c;
	sleep(2);	/* phase 0: the baseline, nothing attached */

	/* Small stacks: 10,000 threads must fit in a 1 GiB guest. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 32 * 1024);
	pthread_attr_setguardsize(&attr, 0);
	t0 = now_s();
	for (int i = 0; i < nr_workers; i++) {
		if (pthread_create(&workers[i].th, &attr, worker_fn, &workers[i]))
			break;
		created++;
	}
	while (atomic_load(&started) < created && now_s() - t0 < 300)
		usleep(10000);
	t_create = now_s() - t0;
	for (int i = 0; i < created; i++)
		joined += workers[i].joined;
	printf("# %d threads created and %d joined faulty in %.1f s; policy shows %d tasks\n",
	       created, joined, t_create, policy_tasks("faulty"));
	snprintf(desc, sizeof(desc), "%d threads attached to faulty", nr_workers);
	TAP_CHECK(created == nr_workers && joined == nr_workers, desc);

	/* Let the watchdog walk the list a few times (every 1.25 s). */
	phase = 1;
	sleep(4);
	ret = policy_state("faulty", reason, sizeof(reason));
	snprintf(desc, sizeof(desc), "faulty still enabled with %d tasks before the fault is armed",
		 policy_tasks("faulty"));
	TAP_CHECK(ret == 0 && !strcmp(reason, saakm_policy_state_names[SAAKM_POLICY_ENABLED]), desc);
	if (ret || strcmp(reason, saakm_policy_state_names[SAAKM_POLICY_ENABLED])) {
		wait_ejected("faulty", reason, sizeof(reason), 0 + 1);
		printf("# it was ejected early: %s\n", reason);
	}
	phase = 2;
	write_file("/sys/module/saakm_faulty/parameters/armed", "1");
	t0 = now_s();
	ms = wait_ejected("faulty", reason, sizeof(reason), 10000 * scale);
	printf("# ejected after %ld ms: %s\n", ms, reason);
	TAP_CHECK(ms >= 0, "faulty ejected when the fault is armed");
	if (ms >= 0)
		t_drain = wait_drained("faulty", 2 * drain_bound);
	printf("# drain: %d tasks left after %.1f s (bound %.0f s)\n", policy_tasks("faulty"),
	       t_drain >= 0 ? t_drain : now_s() - t0, drain_bound);
	snprintf(desc, sizeof(desc), "drained within %.0f s", drain_bound);
	if (t_drain >= 0 && t_drain <= drain_bound)
		tap_ok(desc);
	else
		tap_not_ok(desc, "%d tasks still attached after %.1f s", policy_tasks("faulty"),
			   t_drain >= 0 ? t_drain : now_s() - t0);

	lat_stop = 1;
	for (int c = 0; c < nr_lat; c++)
		pthread_join(lat[c], NULL);
	printf("# worst wake-up latency of a SCHED_FIFO thread per CPU: %.1f ms with nothing attached, %.1f ms while attached, %.1f ms during ejection and drain\n",
	       worst_late(0), worst_late(1), worst_late(2));

	for (int i = 0; i < created; i++)
		normal += sched_getscheduler(workers[i].tid) == SCHED_OTHER;
	snprintf(desc, sizeof(desc), "all %d threads back in SCHED_NORMAL", created);
	if (normal == created)
		tap_ok(desc);
	else
		tap_not_ok(desc, "%d of %d", normal, created);

	t0 = now_s();
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	while (atomic_load(&finished) < created && now_s() - t0 < 60 * scale)
		usleep(10000);
	t_finish = now_s() - t0;
	printf("# %d of %d threads finished in %.1f s\n", atomic_load(&finished), created,
	       t_finish);
	if (atomic_load(&finished) < created) {
		/* Some are lost: joining them would hang; the unload rescues them. */
		tap_not_ok("every thread finishes", "%d of %d finished within %d s",
			   atomic_load(&finished), created, 60 * scale);
		return tap_done();
	}
	for (int i = 0; i < created; i++) {
		pthread_join(workers[i].th, NULL);
		normal_end += workers[i].normal_at_end;
	}
	snprintf(desc, sizeof(desc), "every thread finishes under SCHED_NORMAL");
	if (normal_end == created)
		tap_ok(desc);
	else
		tap_not_ok(desc, "%d of %d", normal_end, created);
	TAP_CHECK(unload_module_within("saakm_faulty", 60, NULL) == 0, "faulty unloads");
	return tap_done();
}
