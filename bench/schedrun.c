// SPDX-License-Identifier: GPL-2.0
/*
 * schedrun: run a command under a chosen scheduling class and prove it.
 *
 *   schedrun [-o FILE] [-l LABEL] [-x COMM] CLASS -- CMD [ARGS...]
 *
 * CLASS is eevdf, ext (any sched_ext scheduler), ext:OPS (the sched_ext
 * scheduler whose ops are named OPS, e.g. ext_fifo, central), or
 * saakm:NAME / saakm:ID (a SaaKM policy).
 *
 * The child switches itself to SCHED_NORMAL (0), SCHED_EXT (7) or
 * SCHED_SAAKM (8, with the policy id) with sched_setattr(), checks it with
 * sched_getscheduler(), and execs CMD; every task it creates inherits the
 * policy. The parent stays on EEVDF, waits for CMD (elapsed_s is exact) and,
 * from a second thread while CMD runs, samples the
 * /proc/PID/task/TID/sched "policy" (and, for ext, "ext.enabled") line of
 * every thread of CMD and its descendants, at 10 ms, 20 ms, 40 ms, ... (at
 * most every 500 ms, so the sampling costs the same little in every
 * configuration). A task of the wrong class makes the run invalid: exit 3.
 * A SCHED_EXT task with no BPF scheduler loaded runs on EEVDF while its
 * policy still reads 7, hence the ext.enabled check. For ext:OPS every
 * sample (and the moments before and after CMD) also reads
 * /sys/kernel/sched_ext/state and root/ops: another sched_ext scheduler
 * than OPS makes the run invalid. For saakm every sampled thread's
 * sched_getattr() must name the policy's id (policy 8 alone does not say
 * which policy), unless the thread is a zombie (the class has detached it).
 *
 * -x COMM exempts threads named COMM from the class check if they are
 * SCHED_FIFO or SCHED_RR (counted as exempt=N): a workload's load
 * generator that stands outside the scheduler under test
 * (bench/dispersive's "disp-gen"). Such a thread in any other class is bad.
 *
 * On exit it prints (and appends to FILE) one line:
 *   schedrun: label=L want=7 ok=1 samples=S threads=T bad=B first_bad=...
 *             elapsed_s=X status=RC exempt=E
 * Exit status: CMD's status, 3 if the class check failed, 126/127 if CMD
 * could not be started.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SCHED_EXT
#define SCHED_EXT 7
#endif
#include "saakm.h"		/* tools/lib: SCHED_SAAKM, struct saakm_sched_attr */

static int want_policy, want_id;
static const char *want_ops;		/* ext:OPS, or NULL */
static const char *exempt_comm;		/* -x COMM, or NULL */
static long samples, threads, bad, exempt;
static char first_bad[128];

static void mark_bad(const char *fmt, int a, int b, int c)
{
	if (!bad++)
		snprintf(first_bad, sizeof(first_bad), fmt, a, b, c);
}

/* First line of a small file, newline stripped; "" if unreadable. */
static void read_line(const char *path, char *buf, int size)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(buf, size, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* For ext:OPS: the enabled sched_ext scheduler must be OPS. */
static void check_ext_ops(void)
{
	char state[32], ops[64];

	if (!want_ops)
		return;
	read_line("/sys/kernel/sched_ext/state", state, sizeof(state));
	read_line("/sys/kernel/sched_ext/root/ops", ops, sizeof(ops));
	if (strcmp(state, "enabled") || strcmp(ops, want_ops)) {
		if (!bad++)
			snprintf(first_bad, sizeof(first_bad), "sched_ext:%s:ops:%s",
				 state[0] ? state : "?", ops[0] ? ops : "?");
	}
}

/* The SaaKM policy id of @tid (sched_getattr), -1 if it cannot be read. */
static int saakm_id_of(int tid)
{
	struct saakm_sched_attr a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, tid, &a, sizeof(a), 0))
		return -1;
	return a.sched_saakm_id;
}

/*
 * A zombie or dead thread (or one gone): the class has detached it from its
 * policy (sched_getattr reads id 0) while its policy still reads 8. Not a
 * misclassified task.
 */
static int exiting(int pid, int tid)
{
	char path[96], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	read_line(path, buf, sizeof(buf));
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X' || p[2] == 'x';
}

/* A thread outside the class that -x allows: named COMM, SCHED_FIFO/RR. */
static int exempted(int pid, int tid, int policy)
{
	char path[96], comm[64];

	if (!exempt_comm || (policy != SCHED_FIFO && policy != SCHED_RR))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	read_line(path, comm, sizeof(comm));
	return !strcmp(comm, exempt_comm);
}

/* A policy name or id to its id (libsaakm parses /proc/saakm); -1 if not loaded. */
static int saakm_lookup(const char *name)
{
	int id = saakm_policy_id(name);

	return id > 0 ? id : -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int ppid_of(int pid)
{
	char path[64], buf[512], *p;
	int ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 2, "%*c %d", &ppid);
	fclose(f);
	return ppid;
}

/* Check one thread; returns 0 if it is gone or fine. */
static void check_thread(int pid, int tid)
{
	char path[96], line[256];
	int policy = -1, ext = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "policy ", 7))
			sscanf(strchr(line, ':') + 1, "%d", &policy);
		else if (!strncmp(line, "ext.enabled ", 12))
			sscanf(strchr(line, ':') + 1, "%d", &ext);
	}
	fclose(f);
	if (policy < 0)
		return;
	threads++;
	if (policy != want_policy && exempted(pid, tid, policy)) {
		exempt++;
		return;
	}
	if (policy != want_policy || (want_policy == SCHED_EXT && ext != 1)) {
		mark_bad("tid%d:policy%d:ext%d", tid, policy, ext);
		return;
	}
	if (want_policy == SCHED_SAAKM) {
		int id = saakm_id_of(tid);

		/* -1: gone; a zombie reads 0 (its state, read after the id, says so) */
		if (id >= 0 && id != want_id && !exiting(pid, tid))
			mark_bad("tid%d:saakm_id%d:want%d", tid, id, want_id);
	}
}

/* Every thread of @root and of its descendants. */
static void sample(int root)
{
	int pids[4096], n = 0, i, j, changed;
	char path[64];
	struct dirent *d, *t;
	DIR *dir, *td;
	int in[4096];

	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir)) && n < 4096)
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
			pids[n++] = atoi(d->d_name);
	closedir(dir);
	for (i = 0; i < n; i++)
		in[i] = pids[i] == root ? 1 : (ppid_of(pids[i]) + 2);	/* ppid+2 > 1 */
	/* resolve descendants: in[i] == 1 member, else ppid + 2 */
	do {
		changed = 0;
		for (i = 0; i < n; i++) {
			if (in[i] <= 1)
				continue;
			for (j = 0; j < n; j++)
				if (in[j] == 1 && pids[j] == in[i] - 2) {
					in[i] = 1;
					changed = 1;
					break;
				}
		}
	} while (changed);
	samples++;
	check_ext_ops();
	for (i = 0; i < n; i++) {
		if (in[i] != 1)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", pids[i]);
		td = opendir(path);
		if (!td)
			continue;
		while ((t = readdir(td)))
			if (t->d_name[0] >= '1' && t->d_name[0] <= '9')
				check_thread(pids[i], atoi(t->d_name));
		closedir(td);
	}
}

/* Sampler thread: cancellable only while it sleeps, never inside stdio. */
static void *sampler(void *arg)
{
	int root = (int)(long)arg;
	long delay_ms = 10;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	for (;;) {
		struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };

		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		nanosleep(&ts, NULL);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		sample(root);
		delay_ms = delay_ms * 2 > 500 ? 500 : delay_ms * 2;
	}
	return NULL;
}

static int usage(void)
{
	fprintf(stderr, "usage: schedrun [-o FILE] [-l LABEL] [-x COMM] eevdf|ext|ext:OPS|saakm:NAME|saakm:ID -- CMD [ARGS...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *label = "-", *cls;
	struct saakm_sched_attr a = { .size = sizeof(a) };
	int opt, status, rc, pid, ok;
	pthread_t th;
	double t0, el;
	FILE *f;

	while ((opt = getopt(argc, argv, "+o:l:x:")) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'l')
			label = optarg;
		else if (opt == 'x')
			exempt_comm = optarg;
		else
			return usage();
	}
	if (optind + 1 >= argc)
		return usage();
	cls = argv[optind++];
	if (!strcmp(argv[optind], "--"))
		optind++;
	if (optind >= argc)
		return usage();
	if (!strcmp(cls, "eevdf")) {
		want_policy = SCHED_OTHER;
	} else if (!strcmp(cls, "ext")) {
		want_policy = SCHED_EXT;
	} else if (!strncmp(cls, "ext:", 4) && cls[4]) {
		want_policy = SCHED_EXT;
		want_ops = cls + 4;
	} else if (!strncmp(cls, "saakm:", 6)) {
		want_policy = SCHED_SAAKM;
		want_id = saakm_lookup(cls + 6);
		if (want_id <= 0) {
			fprintf(stderr, "schedrun: no SaaKM policy '%s'\n", cls + 6);
			return 126;
		}
	} else {
		return usage();
	}
	a.sched_policy = want_policy;
	a.sched_saakm_id = want_id;
	/* SCHED_NORMAL/EXT callers use the VER1 size, as any old program would */
	if (want_policy != SCHED_SAAKM)
		a.size = 56;

	check_ext_ops();
	t0 = now();
	pid = fork();
	if (pid < 0)
		return 126;
	if (pid == 0) {
		if (syscall(SYS_sched_setattr, 0, &a, 0)) {
			fprintf(stderr, "schedrun: sched_setattr(policy %d): %s\n",
				want_policy, strerror(errno));
			_exit(126);
		}
		if (sched_getscheduler(0) != want_policy) {
			fprintf(stderr, "schedrun: sched_getscheduler() = %d, want %d\n",
				sched_getscheduler(0), want_policy);
			_exit(126);
		}
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "schedrun: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	pthread_create(&th, NULL, sampler, (void *)(long)pid);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	el = now() - t0;
	pthread_cancel(th);
	pthread_join(th, NULL);
	check_ext_ops();
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	/* a run that ended before the first sample was checked by the child */
	ok = !bad && rc != 126 && rc != 127;
	f = out ? fopen(out, "a") : NULL;
	for (int i = 0; i < 2; i++) {
		FILE *o = i ? f : stderr;

		if (!o)
			continue;
		fprintf(o, "schedrun: label=%s want=%d ok=%d samples=%ld threads=%ld bad=%ld first_bad=%s elapsed_s=%.6f status=%d exempt=%ld\n",
			label, want_policy, ok, samples, threads, bad,
			first_bad[0] ? first_bad : "-", el, rc, exempt);
	}
	if (f)
		fclose(f);
	if (!ok && rc == 0)
		return 3;
	return rc;
}
