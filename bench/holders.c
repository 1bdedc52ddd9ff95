// SPDX-License-Identifier: GPL-2.0
/*
 * holders: keep N tasks attached to the caller's scheduling policy, for
 * measurements that depend on how many tasks a policy has (bench/upgrade.sh).
 *
 *   usage: holders N SPIN
 *
 * Starts N - 1 threads besides the main one, which inherit its policy
 * (start it with 'saakm run -p NAME'). SPIN of them spin, so that runqueues
 * hold READY tasks; the others block on a pipe. When all are up, prints
 * "ready N" and waits for its standard input to close, then exits.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int block_fd[2];
static volatile int stop;

static void *blocker(void *arg)
{
	char c;

	(void)arg;
	while (read(block_fd[0], &c, 1) < 0)
		;
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	while (!stop)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	long n, spin, i;
	char c;

	if (argc != 3 || (n = atol(argv[1])) < 1 || (spin = atol(argv[2])) < 0 || spin >= n) {
		fprintf(stderr, "usage: holders N SPIN (1 <= N, 0 <= SPIN < N)\n");
		return 2;
	}
	if (pipe(block_fd)) {
		perror("holders: pipe");
		return 1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN > 65536 ? PTHREAD_STACK_MIN : 65536);
	for (i = 1; i < n; i++) {
		pthread_t t;
		int err = pthread_create(&t, &attr, i <= spin ? spinner : blocker, NULL);

		if (err) {
			fprintf(stderr, "holders: thread %ld of %ld: error %d\n", i, n, err);
			return 1;
		}
		pthread_detach(t);
	}
	printf("ready %ld\n", n);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	stop = 1;
	return 0;
}
