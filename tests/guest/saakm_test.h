/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for SaaKM guest tests written in C: the sched_attr layout with the
 * SaaKM fields (the guest's libc headers predate them), policy loading and
 * lookup, and small workloads. Header-only so each t_*.c builds alone.
 */
#ifndef SAAKM_TEST_H
#define SAAKM_TEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "saakm.h"		/* tools/lib */

/* sched_attr with the SaaKM fields, SCHED_SAAKM, ...: from libsaakm. */
#define SAAKM_ATTR_VER0		SCHED_ATTR_SIZE_VER0
#define SAAKM_ATTR_VER2		SCHED_ATTR_SIZE_VER2

static inline int sys_setattr(pid_t pid, struct saakm_sched_attr *a)
{
	return syscall(SYS_sched_setattr, pid, a, 0) ? -errno : 0;
}

static inline int sys_getattr(pid_t pid, struct saakm_sched_attr *a, unsigned int size)
{
	return syscall(SYS_sched_getattr, pid, a, size, 0) ? -errno : 0;
}

/* Move @pid (0: self) to policy @id; 0 or -errno. */
static inline int saakm_join(pid_t pid, int id, unsigned long flags)
{
	struct saakm_sched_attr a = {
		.size = sizeof(a), .sched_policy = SCHED_SAAKM,
		.sched_flags = flags, .sched_saakm_id = id,
	};

	return sys_setattr(pid, &a);
}

static inline int saakm_leave(pid_t pid)
{
	struct saakm_sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_OTHER };

	return sys_setattr(pid, &a);
}

/* SaaKM policy id of @pid, 0 if none, -errno on error. */
static inline int saakm_id_of(pid_t pid)
{
	struct saakm_sched_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	ret = sys_getattr(pid, &a, sizeof(a));
	if (ret)
		return ret;
	return a.sched_policy == SCHED_SAAKM ? (int)a.sched_saakm_id : 0;
}

/* The line of policy @name in /proc/saakm/policies: 0 if found, -1 if not. */
static inline int policy_line(const char *name, int *id, int *tasks)
{
	char line[256], pname[64];
	int i, t, found = -1;
	FILE *f = fopen("/proc/saakm/policies", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %63s %d", &i, pname, &t) == 3 && !strcmp(pname, name)) {
			*id = i;
			*tasks = t;
			found = 0;
		}
	fclose(f);
	return found;
}

/* Id of the policy named @name, -1 if absent. */
static inline int policy_id(const char *name)
{
	int id = -1, tasks = -1;

	return policy_line(name, &id, &tasks) ? -1 : id;
}

/* Number of tasks attached to @name, -1 if absent. */
static inline int policy_tasks(const char *name)
{
	int id = -1, tasks = -1;

	return policy_line(name, &id, &tasks) ? -1 : tasks;
}

/* insmod $SAAKM_ROOT/@relpath @params; returns the policy id of @name. */
static inline int load_policy(const char *name, const char *relpath, const char *params)
{
	char cmd[512];
	const char *root = getenv("SAAKM_ROOT");

	snprintf(cmd, sizeof(cmd), "insmod %s/%s %s", root ? root : ".", relpath,
		 params ? params : "");
	if (system(cmd))
		return -1;
	return policy_id(name);
}

static inline int unload_module(const char *module)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rmmod %s", module);
	return system(cmd) ? -1 : 0;
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spin for about @secs seconds of wall time. */
static inline void spin_for(double secs)
{
	double end = now_s() + secs;

	while (now_s() < end)
		;
}

/* Fork a child running @fn(@arg); returns its pid. */
static inline pid_t spawn(int (*fn)(long), long arg)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

/* Wait for @pid; true if it exited with status 0. */
static inline int reaped_ok(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

/* Total CPU time of @pid in ns from /proc/PID/schedstat, -1 on error. */
static inline long long task_runtime_ns(pid_t pid)
{
	char path[64];
	long long ns = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &ns) != 1)
		ns = -1;
	fclose(f);
	return ns;
}

static inline int pin_to(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set) ? -errno : 0;
}

/* Last CPU @pid ran on (field 39 of /proc/PID/stat), -1 on error. */
static inline int task_cpu_of(pid_t pid)
{
	char path[64], buf[1024], *p;
	int field = 1, cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');	/* comm may contain spaces */
		for (field = 2; p && *p; p++)
			if (*p == ' ' && ++field == 39) {
				cpu = atoi(p + 1);
				break;
			}
	}
	fclose(f);
	return cpu;
}

/*
 * Each test looks only at kernel messages logged since it started (an
 * earlier test may eject policies on purpose): a /dev/kmsg descriptor
 * opened at start and positioned at the end reads exactly those later.
 */
static int saakm_kmsg_fd = -1;

__attribute__((constructor)) static void saakm_log_mark(void)
{
	saakm_kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (saakm_kmsg_fd >= 0)
		lseek(saakm_kmsg_fd, 0, SEEK_END);
}

/* True if no SaaKM policy error or refused transition was logged since. */
static inline int saakm_log_clean(void)
{
	char rec[2048];
	int clean = 1;
	ssize_t n;

	if (saakm_kmsg_fd < 0)
		return 0;
	for (;;) {
		n = read(saakm_kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten records: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		if (strstr(rec, "saakm: policy ") &&
		    (strstr(rec, "invalid transition") || strstr(rec, ") error: "))) {
			printf("# kernel: %s", strchr(rec, ';') ? strchr(rec, ';') + 1 : rec);
			clean = 0;
		}
	}
	return clean;
}

static inline int nr_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * Workers for forked children: they run until the parent sets *stop, a flag
 * in memory shared across fork (stop_init() maps it).
 */
static volatile int *stop;

static inline void stop_init(void)
{
	stop = mmap(NULL, sizeof(*stop), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	*stop = 0;
}

/* CPU-bound until stopped. */
static inline int spinner(long unused __attribute__((unused)))
{
	while (!*stop)
		;
	return 0;
}

/* Sleep/wake until stopped: 0.1 ms of work, then @usecs asleep. */
static inline int sleeper(long usecs)
{
	while (!*stop) {
		spin_for(0.0001);
		usleep(usecs);
	}
	return 0;
}

#endif /* SAAKM_TEST_H */
