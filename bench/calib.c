// SPDX-License-Identifier: GPL-2.0
/*
 * calib: the benchmark runner's calibration workload (bench/guest.sh runs it
 * under EEVDF, through schedrun, before the first run and after every run).
 *
 *   calib [-t THREADS] [-n ITERATIONS]
 *
 * THREADS threads (default: the number of online CPUs) each run the same
 * fixed integer loop of ITERATIONS steps; no system call, no I/O and no
 * synchronisation happen between the two clock readings except thread
 * creation and join. In icount mode the guest clock advances by the number
 * of instructions executed, so the elapsed guest time of this program is a
 * constant of the kernel and the guest: it moves only if something else ran
 * in the guest meanwhile (a kworker completing host I/O, a busy-waiting
 * console write) or the guest clock itself changed pace. The runner
 * compares every calibration with the first ones and flags the runs it
 * brackets when it moved (docs/benchmarks.md, "The runner's own
 * reliability").
 *
 * Prints one line: calib: threads=T iterations=N elapsed_ns=E checksum=C
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64

static uint64_t iterations = 10000000;

/* one 64-bit LCG step per iteration; the result is kept so the loop stays */
static void *spin(void *arg)
{
	uint64_t x = (uintptr_t)arg + 1, sum = 0;

	for (uint64_t i = 0; i < iterations; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sum ^= x >> 33;
	}
	return (void *)(uintptr_t)sum;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t tid[MAX_THREADS];
	uint64_t t0, t1, check = 0;
	int opt;

	while ((opt = getopt(argc, argv, "t:n:")) != -1) {
		switch (opt) {
		case 't':
			threads = atol(optarg);
			break;
		case 'n':
			iterations = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: calib [-t THREADS] [-n ITERATIONS]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > MAX_THREADS || iterations == 0) {
		fprintf(stderr, "calib: 1..%d threads and a positive iteration count\n",
			MAX_THREADS);
		return 2;
	}
	t0 = now_ns();
	for (long i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, spin, (void *)(uintptr_t)i)) {
			perror("calib: pthread_create");
			return 1;
		}
	for (long i = 0; i < threads; i++) {
		void *ret;

		pthread_join(tid[i], &ret);
		check ^= (uintptr_t)ret;
	}
	t1 = now_ns();
	printf("calib: threads=%ld iterations=%llu elapsed_ns=%llu checksum=%llx\n",
	       threads, (unsigned long long)iterations,
	       (unsigned long long)(t1 - t0), (unsigned long long)check);
	return 0;
}
