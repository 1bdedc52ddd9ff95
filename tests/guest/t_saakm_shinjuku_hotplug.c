// SPDX-License-Identifier: GPL-2.0
/*
 * shinjuku under CPU hotplug (issue 11): 500 threads join shinjuku (slice
 * 30 µs); a few spin, the others loop on 50 µs of work and a short sleep,
 * so the global queue is long and tasks wait on every CPU. In the middle,
 * the last CPU goes offline (its waiting tasks move, its slice timer is
 * stopped) and comes back. Every thread must keep making progress through
 * each phase (none lost in a queue of a CPU that went away), the policy
 * must not be ejected, and every thread must finish.
 */
#include "saakm_test.h"
#include <pthread.h>
#include <stdatomic.h>

SAAKM_TAG("timeout=300");

#define NR_THREADS	500
#define NR_SPIN		8
#define PHASE_S		2.0
#define NR_PHASES	3		/* all CPUs, one CPU offline, all again */

struct worker {
	pthread_t th;
	int joined;
	atomic_long loops;
	long at_phase[NR_PHASES + 1];	/* loops when each phase began, and at the end */
};

static struct worker workers[NR_THREADS];
static int policy;
static volatile int done;
static atomic_int started;

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	long i = w - workers;

	w->joined = saakm_join(0, policy, 0) == 0;
	atomic_fetch_add(&started, 1);
	while (!done) {
		if (i < NR_SPIN) {
			spin_for(0.001);
		} else {
			spin_for(0.00005);
			usleep(200 + (i * 7919) % 1800);
		}
		atomic_fetch_add(&w->loops, 1);
	}
	return NULL;
}

/* Note every worker's progress at the start of phase @ph. */
static void mark(int ph)
{
	for (int i = 0; i < NR_THREADS; i++)
		workers[i].at_phase[ph] = atomic_load(&workers[i].loops);
}

/* Workers that made no progress during phase @ph. */
static int stuck_in(int ph)
{
	int n = 0;

	for (int i = 0; i < NR_THREADS; i++)
		n += workers[i].at_phase[ph + 1] == workers[i].at_phase[ph];
	return n;
}

int main(void)
{
	int cpu = nr_cpus() - 1, created = 0, joined = 0, stuck[NR_PHASES];
	char desc[160], reason[256];
	pthread_attr_t attr;
	double t0;

	if (nr_cpus() < 2) {
		tap_skip("shinjuku hotplug", "needs 2 CPUs");
		return tap_done();
	}
	policy = load_policy("shinjuku", "policies/shinjuku/saakm_shinjuku.ko", "");
	TAP_CHECK(policy > 0, "shinjuku loaded");
	if (policy <= 0)
		return tap_done();

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < NR_THREADS; i++) {
		if (pthread_create(&workers[i].th, &attr, worker_fn, &workers[i]))
			break;
		created++;
	}
	t0 = now_s();
	while (atomic_load(&started) < created && now_s() - t0 < 60)
		usleep(10000);
	for (int i = 0; i < created; i++)
		joined += workers[i].joined;
	snprintf(desc, sizeof(desc), "%d threads created and joined shinjuku (%d)", NR_THREADS, joined);
	TAP_CHECK(created == NR_THREADS && joined == NR_THREADS, desc);

	mark(0);
	usleep(PHASE_S * 1e6);
	mark(1);
	snprintf(desc, sizeof(desc), "CPU %d taken offline with the policy's tasks queued", cpu);
	TAP_CHECK(set_cpu_online(cpu, 0) == 0, desc);
	usleep(PHASE_S * 1e6);
	mark(2);
	TAP_CHECK(set_cpu_online(cpu, 1) == 0, "... and back online");
	usleep(PHASE_S * 1e6);
	mark(3);
	for (int ph = 0; ph < NR_PHASES; ph++) {
		stuck[ph] = stuck_in(ph);
		printf("# phase %d: %d of %d threads made no progress\n", ph, stuck[ph], NR_THREADS);
	}
	TAP_CHECK(!stuck[0] && !stuck[1] && !stuck[2],
		  "every thread made progress before, during and after the hotplug");
	TAP_CHECK(policy_enabled("shinjuku") && policy_error("shinjuku", reason, sizeof(reason)) < 0,
		  "shinjuku was not ejected");
	print_events("shinjuku");

	done = 1;
	for (int i = 0; i < created; i++)
		pthread_join(workers[i].th, NULL);
	TAP_CHECK(wait_drained("shinjuku", 30) >= 0, "every thread finished and left the policy");
	TAP_CHECK(unload_module("saakm_shinjuku") == 0, "rmmod saakm_shinjuku");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
