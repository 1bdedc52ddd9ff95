// SPDX-License-Identifier: GPL-2.0
/*
 * dispersive: the ghOSt/Shinjuku dispersive-load experiment as one program.
 *
 *   dispersive [-w WORKERS] [-s SHORT_US] [-L LONG_US] [-f LONG_FRAC]
 *              [-d SECONDS] [-l LOAD,LOAD,...] [-S SEED] [-g rt|class]
 *              [-i ITERS_PER_US] [-c CAPACITY_RPS]
 *   dispersive -C            (calibrate only)
 *
 * A request server: a pool of worker threads (default 32 per CPU, so that
 * the scheduler, not the server, decides which request runs; see main())
 * serves requests in arrival order: the generator publishes each request
 * and hands it to an idle worker if there is one (as ghOSt's RocksDB load
 * generator assigns each request to an idle worker); a worker that finishes
 * takes the oldest request nobody took, the backlog. A request handed to a
 * woken worker is that worker's: a running worker does not take it first,
 * or it would serve it in whatever remains of its own time slice. No lock:
 * a worker preempted inside a critical section would hold the (RT)
 * generator up behind whatever runs meanwhile (seen in a first version:
 * ms-late arrivals under every scheduler). Each request is CPU work of a
 * fixed number of loop iterations (spin()), not a clock-based busy wait:
 * under QEMU's icount mode an instruction is 1 ns of guest time, so a
 * request's work is the same in every run and every configuration, and
 * only scheduling moves latency.
 *
 * An open-loop generator thread sends requests at a fixed rate with
 * exponential inter-arrival times from a seeded generator, 99.5% short
 * (10 us) and 0.5% long (5 ms), as in ghOSt's RocksDB experiment (GET
 * 10 us, range query 5 ms, ratio 0.005). The whole arrival schedule is drawn
 * before a load point starts, from the seed and the load alone, so it is the
 * same under every scheduler and in every sweep that has that load.
 * Latency is measured from a request's *scheduled* arrival to its
 * completion: a late generator or a full backlog counts against the
 * scheduler, as it would for a real client (no coordinated omission).
 *
 * The generator thread ("disp-gen") runs SCHED_FIFO by default (-g rt): it
 * stands for the clients and the NIC of the real experiment, which are not
 * scheduled by the policy under test, and the RT class is above SaaKM,
 * sched_ext and EEVDF alike. bench/schedrun accepts it through -x disp-gen.
 * With -g class it stays in the workload's class.
 *
 * Calibration: ITERS_PER_US (iterations of spin() per microsecond, one
 * thread) and the effective number of CPUs (all CPUs spinning at once:
 * under icount the clock counts the instructions of all vCPUs together, so
 * two busy vCPUs give about one CPU of guest time) are measured at start,
 * unless given. CAPACITY_RPS = effective CPUs / mean service time. The
 * runner calibrates once (-C) and passes -i and -c to every run, so every
 * configuration is offered exactly the same load.
 *
 * Output, one line each, key=value:
 *   dispersive: calib iters_per_us=.. eff_cpus=.. cpus=.. capacity_rps=..
 *   dispersive: setup workers=.. short_us=.. long_us=.. long_frac=.. ...
 *   dispersive: point load=0.50 offered_rps=.. achieved_rps=.. n=..
 *       short_n=.. short_p50_us=.. short_p99_us=.. short_p999_us=..
 *       long_n=.. long_p50_us=.. long_p99_us=.. long_p999_us=.. long_rps=..
 *       short_ho_p50_us=.. short_ho_p99_us=.. short_ho_p999_us=.. long_ho_p99_us=..
 *       short_bl_frac=.. short_wait_p99_us=.. short_run_p99_us=..
 *       late_p50_us=.. late_p99_us=.. late_max_us=.. nvcsw=.. nivcsw=..
 *       worker_policy=.. span_s=..
 * late_* is how late the generator handed requests over (its own health,
 * part of every latency above); *_ho_* are the latencies from the hand-over
 * instead (the generator's lateness left out), nvcsw/nivcsw the voluntary/involuntary context switches of the
 * process during the point, worker_policy the sched_getscheduler() value
 * the workers saw (-1 if they disagreed). Where a short request's time from
 * the hand-over went: short_bl_frac is the share of short requests handed
 * over while no worker was idle (they wait in the server's backlog, which
 * no scheduler can shorten), short_wait_* the time from the hand-over until
 * a worker took the request (backlog, or the scheduler waking the worker),
 * short_run_* from then to completion (the request's work, and whatever
 * ran in between).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC	1000000000ULL
#define MAX_LOADS	64

/* --- parameters --------------------------------------------------------- */
static int nr_cpus, nr_workers;
static double short_us = 10, long_us = 5000, long_frac = 0.005;
static double point_s = 2.0, warmup_frac = 0.1;
static double loads[MAX_LOADS] = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0 };
static int nr_loads = 10;
static uint64_t seed = 42;
static int gen_rt = 1;
static double iters_per_us, eff_cpus, capacity_rps;

/* --- one load point's requests ------------------------------------------ */
struct point {
	int n;			/* requests in the schedule */
	uint64_t *arrival;	/* scheduled arrival, ns after start */
	uint64_t *done;		/* completion, ns after start */
	uint64_t *iters;	/* work of each request */
	uint64_t *late;		/* how late the generator handed it over, ns */
	uint64_t *claim;	/* when a worker took it, ns after start */
	unsigned char *backlog;	/* 1: handed over while no worker was idle */
	unsigned char *is_long;
	uint64_t start;		/* CLOCK_MONOTONIC ns at arrival 0 */
	uint64_t late_max;	/* worst generator lateness, ns */
};

/*
 * Server state. Requests are served in index (= arrival) order: the
 * generator publishes request i by making published i + 1, workers claim
 * the next one by advancing claimed with a compare-and-swap. A worker with
 * nothing to claim sets its idle flag, then looks again (so that a request
 * published meanwhile is not left behind: either it sees the request, or the
 * generator sees the flag); the generator wakes an idle worker by clearing
 * its flag (compare-and-swap: one waker per idle period) and posting go.
 */
struct worker {
	pthread_t th;
	sem_t go;		/* posted when the worker is woken */
	atomic_int idle;	/* 1: waiting on go, and no waker claimed it yet */
	int req;		/* the request it was woken for, or -1 */
	int policy;		/* sched_getscheduler() seen by this worker */
} __attribute__((aligned(64)));

static struct worker *workers;
static atomic_int published, claimed;
static atomic_int stopping;
static int next_wake;		/* generator only: where the idle scan starts */
static struct point *_Atomic cur;
static atomic_int completed;
static sem_t all_done;		/* posted by whoever completes the last request */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * The unit of work: a fixed number of instructions per iteration (the asm
 * statement keeps the compiler from folding the loop), so the time it takes
 * depends only on the CPU, not on a clock read.
 */
static void __attribute__((noinline)) spin(uint64_t iters)
{
	uint64_t x = 1;

	while (iters--) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
}

/* splitmix64: small, seedable, and the same on every machine */
static uint64_t rnd_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in (0, 1] */
static double rnd_unit(uint64_t *s)
{
	return ((rnd_next(s) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

/* --- calibration -------------------------------------------------------- */

/* Iterations per microsecond of one thread: best of 5 timed runs of ~20 ms. */
static double calibrate_single(void)
{
	uint64_t n = 1000000, t, best = UINT64_MAX;

	for (;;) {		/* grow n until one run takes >= 20 ms */
		t = now_ns();
		spin(n);
		t = now_ns() - t;
		if (t >= 20000000ULL)
			break;
		n *= 2;
	}
	for (int i = 0; i < 5; i++) {
		t = now_ns();
		spin(n);
		t = now_ns() - t;
		if (t < best)
			best = t;
	}
	return n / (best / 1000.0);
}

static pthread_barrier_t cal_bar;
static uint64_t cal_iters;

static void *cal_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&cal_bar);
	spin(cal_iters);
	return NULL;
}

/*
 * Effective CPUs: nr_cpus threads spin the same amount at once; the work
 * done divided by the elapsed time, in units of one thread's speed.
 */
static double calibrate_parallel(void)
{
	pthread_t th[nr_cpus];
	uint64_t t;

	cal_iters = (uint64_t)(iters_per_us * 200000);	/* 200 ms alone */
	pthread_barrier_init(&cal_bar, NULL, nr_cpus + 1);
	for (int i = 0; i < nr_cpus; i++)
		pthread_create(&th[i], NULL, cal_thread, NULL);
	pthread_barrier_wait(&cal_bar);
	t = now_ns();
	for (int i = 0; i < nr_cpus; i++)
		pthread_join(th[i], NULL);
	t = now_ns() - t;
	pthread_barrier_destroy(&cal_bar);
	return nr_cpus * (cal_iters / iters_per_us) / (t / 1000.0);
}

static double mean_service_us(void)
{
	return (1 - long_frac) * short_us + long_frac * long_us;
}

/* --- the server --------------------------------------------------------- */

/* The oldest published request nobody took yet, or -1. */
static int claim(void)
{
	int c = atomic_load(&claimed);

	while (c < atomic_load(&published))
		if (atomic_compare_exchange_weak(&claimed, &c, c + 1))
			return c;
	return -1;
}

static void serve(int r)
{
	struct point *p = atomic_load(&cur);

	p->claim[r] = now_ns() - p->start;
	spin(p->iters[r]);
	p->done[r] = now_ns() - p->start;
	if (atomic_fetch_add(&completed, 1) + 1 == p->n)
		sem_post(&all_done);
}

static void *worker_main(void *arg)
{
	struct worker *w = &workers[(long)arg];
	int one = 1;

	w->policy = sched_getscheduler(0);
	for (;;) {
		int r;

		while ((r = claim()) >= 0)
			serve(r);
		atomic_store(&w->idle, 1);
		/* look again: a request published before the flag was seen */
		if (atomic_load(&claimed) < atomic_load(&published) &&
		    atomic_compare_exchange_strong(&w->idle, &one, 0))
			continue;
		one = 1;
		sem_wait(&w->go);
		if (atomic_load(&stopping))
			return NULL;
		if (w->req >= 0) {	/* dispatch() handed it over */
			serve(w->req);
			w->req = -1;
		}
	}
}

/*
 * Publish request @r and hand it to an idle worker: claimed for the worker
 * here, unless older requests wait (the worker takes those first, in order)
 * or a worker that looked again took it already. 0 if no worker was idle.
 */
static int dispatch(int r)
{
	atomic_store(&published, r + 1);
	for (int k = 0; k < nr_workers; k++) {
		struct worker *w = &workers[(next_wake + k) % nr_workers];
		int one = 1;

		if (atomic_compare_exchange_strong(&w->idle, &one, 0)) {
			int c = r;

			w->req = atomic_compare_exchange_strong(&claimed, &c, r + 1) ? r : -1;
			/* round robin: the next wake starts after this worker */
			next_wake = (next_wake + k + 1) % nr_workers;
			sem_post(&w->go);
			return 1;
		}
	}
	return 0;
}

/* --- one load point ----------------------------------------------------- */

/* Draw the arrival schedule of @rate requests/s for point_s seconds. */
static void make_schedule(struct point *p, double rate, uint64_t pseed)
{
	double t = 0, end = point_s * 1e9;
	int cap = (int)(rate * point_s * 1.5) + 64;

	p->arrival = calloc(cap, sizeof(*p->arrival));
	p->done = calloc(cap, sizeof(*p->done));
	p->iters = calloc(cap, sizeof(*p->iters));
	p->late = calloc(cap, sizeof(*p->late));
	p->claim = calloc(cap, sizeof(*p->claim));
	p->backlog = calloc(cap, 1);
	p->is_long = calloc(cap, 1);
	if (!p->arrival || !p->done || !p->iters || !p->late || !p->claim || !p->backlog ||
	    !p->is_long) {
		perror("dispersive: calloc");
		exit(1);
	}
	p->n = 0;
	for (;;) {
		t += -log(rnd_unit(&pseed)) / rate * 1e9;
		if (t >= end || p->n == cap)
			break;
		p->arrival[p->n] = (uint64_t)t;
		p->is_long[p->n] = rnd_unit(&pseed) <= long_frac;
		p->iters[p->n] = (uint64_t)((p->is_long[p->n] ? long_us : short_us) * iters_per_us);
		p->n++;
	}
}

/* Until every worker sleeps on its semaphore, unwoken (between points). */
static void wait_all_idle(void)
{
	struct timespec ts = { 0, 100000 };

	for (int i = 0; i < nr_workers; i++)
		while (!atomic_load(&workers[i].idle))
			nanosleep(&ts, NULL);
}

/* The generator: sleep until each scheduled arrival, then dispatch it. */
static void generate(struct point *p)
{
	struct timespec ts;

	/* every worker idle (the last point left none busy): start afresh */
	atomic_store(&completed, 0);
	atomic_store(&cur, p);
	atomic_store(&published, 0);
	atomic_store(&claimed, 0);
	p->late_max = 0;
	p->start = now_ns() + 1000000;	/* first arrival 1 ms from now */
	for (int i = 0; i < p->n; i++) {
		uint64_t due = p->start + p->arrival[i], t = now_ns();

		if (t < due) {
			ts.tv_sec = due / NSEC_PER_SEC;
			ts.tv_nsec = due % NSEC_PER_SEC;
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
			t = now_ns();
		}
		p->late[i] = t - due;
		if (p->late[i] > p->late_max)
			p->late_max = p->late[i];
		p->backlog[i] = !dispatch(i);
	}
	if (p->n)
		sem_wait(&all_done);
	wait_all_idle();
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted @v, in microseconds. */
static double pct_us(const uint64_t *v, int n, double q)
{
	int k;

	if (!n)
		return NAN;
	k = (int)ceil(q * n) - 1;
	return v[k < 0 ? 0 : k] / 1000.0;
}

/* The spans of a request's life that class_latencies() measures. */
enum span {
	ARRIVAL_DONE,	/* scheduled arrival to completion */
	HANDOVER_DONE,	/* hand-over to completion: the generator's lateness left out */
	HANDOVER_CLAIM,	/* hand-over until a worker took it */
	CLAIM_DONE,	/* a worker took it to completion */
};

/* @span of the measured requests of class @want_long, sorted. */
static int class_latencies(const struct point *p, int want_long, uint64_t from,
			   enum span span, uint64_t *out)
{
	int n = 0;

	for (int i = 0; i < p->n; i++) {
		uint64_t handover = p->arrival[i] + p->late[i];

		if (p->is_long[i] != want_long || p->arrival[i] < from)
			continue;
		switch (span) {
		case ARRIVAL_DONE: out[n++] = p->done[i] - p->arrival[i]; break;
		case HANDOVER_DONE: out[n++] = p->done[i] - handover; break;
		case HANDOVER_CLAIM: out[n++] = p->claim[i] - handover; break;
		case CLAIM_DONE: out[n++] = p->done[i] - p->claim[i]; break;
		}
	}
	qsort(out, n, sizeof(*out), cmp_u64);
	return n;
}

/* The share of the measured short requests handed over with no worker idle. */
static double short_backlog_frac(const struct point *p, uint64_t from)
{
	int n = 0, bl = 0;

	for (int i = 0; i < p->n; i++) {
		if (p->is_long[i] || p->arrival[i] < from)
			continue;
		n++;
		bl += p->backlog[i];
	}
	return n ? (double)bl / n : 0;
}

static int workers_policy(void)
{
	for (int i = 1; i < nr_workers; i++)
		if (workers[i].policy != workers[0].policy)
			return -1;
	return workers[0].policy;
}

static void report(const struct point *p, double load, double rate, const struct rusage *r0,
		   const struct rusage *r1)
{
	uint64_t from = (uint64_t)(warmup_frac * point_s * 1e9), last = 0;
	uint64_t *lat = malloc((p->n + 1) * sizeof(*lat));
	int ns, nl, nlong_all = 0;
	double span;

	if (!lat) {
		perror("dispersive: malloc");
		exit(1);
	}
	for (int i = 0; i < p->n; i++) {
		if (p->done[i] > last)
			last = p->done[i];
		nlong_all += p->is_long[i];
	}
	span = last / 1e9;
	printf("dispersive: point load=%.3f offered_rps=%.0f achieved_rps=%.0f n=%d",
	       load, rate, span > 0 ? p->n / span : 0, p->n);
	ns = class_latencies(p, 0, from, ARRIVAL_DONE, lat);
	printf(" short_n=%d short_p50_us=%.1f short_p99_us=%.1f short_p999_us=%.1f",
	       ns, pct_us(lat, ns, 0.5), pct_us(lat, ns, 0.99), pct_us(lat, ns, 0.999));
	nl = class_latencies(p, 1, from, ARRIVAL_DONE, lat);
	printf(" long_n=%d long_p50_us=%.1f long_p99_us=%.1f long_p999_us=%.1f long_rps=%.1f",
	       nl, pct_us(lat, nl, 0.5), pct_us(lat, nl, 0.99), pct_us(lat, nl, 0.999),
	       span > 0 ? nlong_all / span : 0);
	ns = class_latencies(p, 0, from, HANDOVER_DONE, lat);
	printf(" short_ho_p50_us=%.1f short_ho_p99_us=%.1f short_ho_p999_us=%.1f",
	       pct_us(lat, ns, 0.5), pct_us(lat, ns, 0.99), pct_us(lat, ns, 0.999));
	nl = class_latencies(p, 1, from, HANDOVER_DONE, lat);
	printf(" long_ho_p99_us=%.1f", pct_us(lat, nl, 0.99));
	printf(" short_bl_frac=%.4f", short_backlog_frac(p, from));
	ns = class_latencies(p, 0, from, HANDOVER_CLAIM, lat);
	printf(" short_wait_p99_us=%.1f", pct_us(lat, ns, 0.99));
	ns = class_latencies(p, 0, from, CLAIM_DONE, lat);
	printf(" short_run_p99_us=%.1f", pct_us(lat, ns, 0.99));
	memcpy(lat, p->late, p->n * sizeof(*lat));
	qsort(lat, p->n, sizeof(*lat), cmp_u64);
	printf(" late_p50_us=%.1f late_p99_us=%.1f late_max_us=%.1f nvcsw=%ld nivcsw=%ld"
	       " worker_policy=%d span_s=%.3f\n",
	       pct_us(lat, p->n, 0.5), pct_us(lat, p->n, 0.99), p->late_max / 1000.0, r1->ru_nvcsw - r0->ru_nvcsw, r1->ru_nivcsw - r0->ru_nivcsw,
	       workers_policy(), span);
	fflush(stdout);
	free(lat);
}

static void free_point(struct point *p)
{
	free(p->arrival);
	free(p->done);
	free(p->iters);
	free(p->late);
	free(p->claim);
	free(p->backlog);
	free(p->is_long);
}

/* The generator thread: every load point in turn. */
static void *gen_main(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "disp-gen");
	/* microsecond arrivals: no timer slack */
	prctl(PR_SET_TIMERSLACK, 1UL);
	if (gen_rt) {
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("dispersive: generator SCHED_FIFO (use -g class to skip)");
			exit(1);
		}
	}
	for (int k = 0; k < nr_loads; k++) {
		double rate = loads[k] * capacity_rps;
		struct rusage r0, r1;
		struct point p;

		/* from the load, not its place in the list: a point is the same in any sweep */
		make_schedule(&p, rate, seed + (uint64_t)llround(loads[k] * 1000));
		getrusage(RUSAGE_SELF, &r0);
		generate(&p);
		getrusage(RUSAGE_SELF, &r1);
		report(&p, loads[k], rate, &r0, &r1);
		free_point(&p);
	}
	return NULL;
}

static void start_workers(void)
{
	workers = calloc(nr_workers, sizeof(*workers));
	if (!workers) {
		perror("dispersive: calloc");
		exit(1);
	}
	for (int i = 0; i < nr_workers; i++) {
		sem_init(&workers[i].go, 0, 0);
		workers[i].req = -1;
		if (pthread_create(&workers[i].th, NULL, worker_main, (void *)(long)i)) {
			perror("dispersive: pthread_create");
			exit(1);
		}
	}
	/* all of them waiting before the first arrival */
	wait_all_idle();
}

static void stop_workers(void)
{
	atomic_store(&stopping, 1);
	for (int i = 0; i < nr_workers; i++)
		sem_post(&workers[i].go);
	for (int i = 0; i < nr_workers; i++)
		pthread_join(workers[i].th, NULL);
}

static int parse_loads(char *s)
{
	char *tok, *save;

	nr_loads = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (nr_loads == MAX_LOADS)
			return -1;
		loads[nr_loads] = atof(tok);
		if (loads[nr_loads] <= 0 || loads[nr_loads] > 2)
			return -1;
		nr_loads++;
	}
	return nr_loads ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: dispersive [-w WORKERS] [-s SHORT_US] [-L LONG_US] [-f LONG_FRAC] [-d SECONDS]\n"
		"                  [-l LOAD,...] [-S SEED] [-g rt|class] [-i ITERS_PER_US] [-c CAPACITY_RPS]\n"
		"       dispersive -C    (calibrate, print, exit)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int opt, calib_only = 0;
	pthread_t gen;

	nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	/*
	 * Enough workers that all of them are rarely busy at once: a request
	 * that finds none idle waits in the backlog, behind the long requests
	 * the workers hold, whatever the scheduler. Shinjuku-like scheduling
	 * shares the CPU like a processor-sharing server, which holds W or more
	 * requests with probability load^W: at 70% load plus the switching
	 * cost (~10% in icount) 32 makes it ~0.1%. Measured (1 vCPU, icount,
	 * 70% load): 3 workers, 49-65% of short requests found none idle;
	 * 10, 13-33%; 32, under 4%. ghOSt's RocksDB runs had 10 per CPU.
	 */
	nr_workers = 32 * nr_cpus;
	while ((opt = getopt(argc, argv, "w:s:L:f:d:l:S:g:i:c:C")) != -1) {
		switch (opt) {
		case 'w': nr_workers = atoi(optarg); break;
		case 's': short_us = atof(optarg); break;
		case 'L': long_us = atof(optarg); break;
		case 'f': long_frac = atof(optarg); break;
		case 'd': point_s = atof(optarg); break;
		case 'l': if (parse_loads(optarg)) usage(); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'g': gen_rt = strcmp(optarg, "class") != 0; break;
		case 'i': iters_per_us = atof(optarg); break;
		case 'c': capacity_rps = atof(optarg); break;
		case 'C': calib_only = 1; break;
		default: usage();
		}
	}
	if (nr_workers < 1 || short_us <= 0 || long_us <= 0 || long_frac < 0 || long_frac > 1 ||
	    point_s <= 0 || iters_per_us < 0 || capacity_rps < 0)
		usage();

	if (!iters_per_us)
		iters_per_us = calibrate_single();
	if (!capacity_rps) {
		eff_cpus = calibrate_parallel();
		capacity_rps = eff_cpus / mean_service_us() * 1e6;
	} else {
		eff_cpus = capacity_rps * mean_service_us() / 1e6;
	}
	printf("dispersive: calib iters_per_us=%.3f eff_cpus=%.3f cpus=%d capacity_rps=%.1f\n",
	       iters_per_us, eff_cpus, nr_cpus, capacity_rps);
	if (calib_only)
		return 0;
	printf("dispersive: setup workers=%d short_us=%g long_us=%g long_frac=%g mean_service_us=%.3f "
	       "point_s=%g warmup_frac=%g seed=%llu generator=%s\n",
	       nr_workers, short_us, long_us, long_frac, mean_service_us(), point_s, warmup_frac,
	       (unsigned long long)seed, gen_rt ? "rt" : "class");
	fflush(stdout);

	sem_init(&all_done, 0, 0);
	start_workers();
	pthread_create(&gen, NULL, gen_main, NULL);
	pthread_join(gen, NULL);
	stop_workers();
	return 0;
}
