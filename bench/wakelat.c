// SPDX-License-Identifier: GPL-2.0
/*
 * wakelat: wakeup latency of futex-woken threads, in the spirit of schbench.
 *
 *   wakelat [-m MESSENGERS] [-t WORKERS] [-n ROUNDS] [-w WORK]
 *
 * Each messenger thread owns WORKERS worker threads. In each round the
 * messenger stamps the time and wakes all its workers (FUTEX_WAKE); each
 * worker, once running, records now - stamp (its wakeup latency: the time
 * from being woken to being on a CPU), spins WORK iterations of
 * think time, and reports back; the messenger sleeps (FUTEX_WAIT) until all
 * its workers are done, then starts the next round. With more threads than
 * CPUs the latency includes queueing behind other runnable threads, which is
 * where schedulers differ.
 *
 * Prints one line (latencies in microseconds, lower is better; rounds/s
 * higher is better):
 *   wakelat: wakeups=N p50_us=.. p99_us=.. p999_us=.. max_us=.. rounds_per_s=..
 *            policies=P
 * where P is the set of sched_getscheduler() values the threads saw.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct messenger;

struct worker {
	pthread_t th;
	struct messenger *m;
	uint32_t seq;			/* futex: bumped to wake the worker */
	uint64_t stamp_ns;		/* when the messenger woke us */
	uint64_t *lat;			/* one latency per round */
	int n;
} __attribute__((aligned(64)));

struct messenger {
	pthread_t th;
	struct worker *w;
	uint32_t pending;		/* futex: workers not done this round */
} __attribute__((aligned(64)));

static int nr_msg = 2, nr_work = 2, rounds = 1000;
static long work = 2000;
static volatile int stop;
static uint32_t policies_seen;		/* bit per policy value */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void futex_wait(uint32_t *addr, uint32_t val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(uint32_t *addr, int n)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static void note_policy(void)
{
	int p = sched_getscheduler(0);

	if (p >= 0 && p < 32)
		__atomic_fetch_or(&policies_seen, 1u << p, __ATOMIC_RELAXED);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	uint32_t last = 0, cur;
	volatile long sink = 0;

	note_policy();
	while (!stop) {
		while ((cur = __atomic_load_n(&w->seq, __ATOMIC_ACQUIRE)) == last && !stop)
			futex_wait(&w->seq, last);
		if (stop)
			break;
		last = cur;
		w->lat[w->n++] = now_ns() - __atomic_load_n(&w->stamp_ns, __ATOMIC_ACQUIRE);
		for (long i = 0; i < work; i++)
			sink += i;
		if (__atomic_sub_fetch(&w->m->pending, 1, __ATOMIC_ACQ_REL) == 0)
			futex_wake(&w->m->pending, 1);
	}
	return NULL;
}

static void *messenger_fn(void *arg)
{
	struct messenger *m = arg;
	uint32_t p;

	note_policy();
	for (int r = 0; r < rounds; r++) {
		__atomic_store_n(&m->pending, nr_work, __ATOMIC_RELEASE);
		for (int i = 0; i < nr_work; i++) {
			struct worker *w = &m->w[i];

			__atomic_store_n(&w->stamp_ns, now_ns(), __ATOMIC_RELEASE);
			__atomic_add_fetch(&w->seq, 1, __ATOMIC_RELEASE);
			futex_wake(&w->seq, 1);
		}
		while ((p = __atomic_load_n(&m->pending, __ATOMIC_ACQUIRE)) != 0)
			futex_wait(&m->pending, p);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct messenger *ms;
	uint64_t *all, t0, t1;
	int opt, n = 0;

	while ((opt = getopt(argc, argv, "m:t:n:w:h")) != -1) {
		switch (opt) {
		case 'm': nr_msg = atoi(optarg); break;
		case 't': nr_work = atoi(optarg); break;
		case 'n': rounds = atoi(optarg); break;
		case 'w': work = atol(optarg); break;
		default:
			fprintf(stderr, "usage: wakelat [-m MESSENGERS] [-t WORKERS] [-n ROUNDS] [-w WORK]\n");
			return opt != 'h';
		}
	}
	if (nr_msg < 1 || nr_work < 1 || rounds < 1)
		return 2;
	ms = aligned_alloc(64, sizeof(*ms) * nr_msg);
	memset(ms, 0, sizeof(*ms) * nr_msg);
	for (int i = 0; i < nr_msg; i++) {
		ms[i].w = aligned_alloc(64, sizeof(struct worker) * nr_work);
		memset(ms[i].w, 0, sizeof(struct worker) * nr_work);
		for (int j = 0; j < nr_work; j++) {
			ms[i].w[j].m = &ms[i];
			ms[i].w[j].lat = calloc(rounds, sizeof(uint64_t));
			pthread_create(&ms[i].w[j].th, NULL, worker_fn, &ms[i].w[j]);
		}
	}
	note_policy();
	t0 = now_ns();
	for (int i = 0; i < nr_msg; i++)
		pthread_create(&ms[i].th, NULL, messenger_fn, &ms[i]);
	for (int i = 0; i < nr_msg; i++)
		pthread_join(ms[i].th, NULL);
	t1 = now_ns();
	stop = 1;
	all = calloc((size_t)nr_msg * nr_work * rounds, sizeof(uint64_t));
	for (int i = 0; i < nr_msg; i++)
		for (int j = 0; j < nr_work; j++) {
			struct worker *w = &ms[i].w[j];

			__atomic_add_fetch(&w->seq, 1, __ATOMIC_RELEASE);
			futex_wake(&w->seq, 1);
			pthread_join(w->th, NULL);
			memcpy(all + n, w->lat, w->n * sizeof(uint64_t));
			n += w->n;
		}
	qsort(all, n, sizeof(uint64_t), cmp_u64);
#define PCT(q) (all[(size_t)((n - 1) * (q))] / 1000.0)
	printf("wakelat: wakeups=%d p50_us=%.1f p99_us=%.1f p999_us=%.1f max_us=%.1f rounds_per_s=%.1f policies=",
	       n, PCT(0.50), PCT(0.99), PCT(0.999), all[n - 1] / 1000.0,
	       (double)nr_msg * rounds / ((t1 - t0) / 1e9));
	for (int p = 0, first = 1; p < 32; p++)
		if (policies_seen & (1u << p)) {
			printf(first ? "%d" : ",%d", p);
			first = 0;
		}
	printf("\n");
	return 0;
}
