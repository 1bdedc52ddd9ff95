// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: ROUNDS round trips of a byte over two pipes between two
 * processes pinned to CPU_A and CPU_B (the same CPU, or two), as perf
 * bench sched pipe does without the pinning. Prints microseconds per round
 * trip. Under kprof.sh ($KPROF_OUT set), the loop is a window of its own:
 * it is marked "NAME-setup" before and NAME after (bench/kprof-mark's
 * convention), so that the profile leaves out the start and the exit.
 *
 *   usage: pingpong ROUNDS CPU_A CPU_B [NAME]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("pingpong: sched_setaffinity");
		exit(1);
	}
}

/* End the kprof window @name, if profiling. */
static void mark(const char *name, const char *suffix)
{
	const char *dir = getenv("KPROF_OUT");
	char path[4096], host[64];
	FILE *f;

	if (!dir || !name)
		return;
	snprintf(path, sizeof(path), "%s/marks", dir);
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%s%s\n", name, suffix);
	fclose(f);
	snprintf(host, sizeof(host), "kprof-%s%s", name, suffix);
	if (sethostname(host, strlen(host)))
		perror("pingpong: sethostname");
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int ab[2], ba[2], rounds, i;
	const char *name = argc > 4 ? argv[4] : NULL;
	double t0, t1;
	pid_t kid;
	char c = 0;

	if (argc < 4 || pipe(ab) || pipe(ba)) {
		fprintf(stderr, "usage: pingpong ROUNDS CPU_A CPU_B [NAME]\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	kid = fork();
	if (kid == 0) {
		pin(atoi(argv[3]));
		for (i = 0; i < rounds; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	pin(atoi(argv[2]));
	usleep(10000);		/* the other end is waiting in read() */
	mark(name, "-setup");
	t0 = now_us();
	for (i = 0; i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	t1 = now_us();
	mark(name, "");
	waitpid(kid, NULL, 0);
	printf("%.3f\n", (t1 - t0) / rounds);
	return 0;
}
