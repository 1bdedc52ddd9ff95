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
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
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

/*
 * /proc/saakm is parsed only by libsaakm (tools/lib/saakm.c, linked into
 * every test): these are the tests' shorthands for its helpers.
 */

/* State ("enabled", "disabling", "ejected") of policy @name; -1 if absent. */
static inline int policy_state(const char *name, char *state, size_t len)
{
	struct saakm_policy_info pi;

	if (saakm_policy_get(name, &pi))
		return -1;
	snprintf(state, len, "%s", pi.state);
	return 0;
}

/* Id of the policy named @name, -1 if absent. */
static inline int policy_id(const char *name)
{
	struct saakm_policy_info pi;

	return saakm_policy_get(name, &pi) ? -1 : pi.id;
}

/* Number of tasks attached to @name, -1 if absent. */
static inline int policy_tasks(const char *name)
{
	int n = saakm_policy_tasks(name);

	return n < 0 ? -1 : n;
}

/* True if policy @name is listed and enabled. */
static inline int policy_enabled(const char *name)
{
	struct saakm_policy_info pi;

	return !saakm_policy_get(name, &pi) && pi.state_id == SAAKM_POLICY_ENABLED;
}

/* "KIND: REASON" of policy @name in /proc/saakm/errors into @buf; -1 if none. */
static inline int policy_error(const char *name, char *buf, size_t len)
{
	struct saakm_error err;

	if (saakm_error_get(name, &err))
		return -1;
	/* a reason too long for @buf is cut */
	return snprintf(buf, len, "%s: %s", err.kind, err.reason) < 0 ? -1 : 0;
}

/* Counter @key of policy @name in /proc/saakm/events; -1 if absent. */
static inline long long event_count(const char *name, const char *key)
{
	long long n = saakm_event_count(name, key);

	return n < 0 ? -1 : n;
}

/* Print policy @name's non-zero event counters as a "# " comment line. */
static inline void print_events(const char *name)
{
	struct saakm_events ev;

	if (saakm_events_get(name, &ev)) {
		printf("# events of %s: none\n", name);
		return;
	}
	printf("# events of %s:", name);
	for (int i = 0; i < SAAKM_NR_EVENTS; i++)
		if (ev.count[i] > 0)
			printf(" %s=%lld", saakm_event_names[i], ev.count[i]);
	printf(" bad_transitions=%lld\n", ev.bad_transitions);
}

/*
 * What a test leaves behind, undone however it ends (saakm_cleanup_run()
 * at the end of this file): the children spawn() started, the modules
 * load_policy() and module_load() loaded, and the old contents of the files
 * sysfs_set() wrote.
 */
#define SAAKM_CLEANUP_KIDS	1024
#define SAAKM_CLEANUP_MODS	8
#define SAAKM_CLEANUP_FILES	8

static struct {
	pid_t owner;		/* the test's process; its children do no cleanup */
	int nr_kids, nr_mods, nr_files;
	pid_t kids[SAAKM_CLEANUP_KIDS];
	char mods[SAAKM_CLEANUP_MODS][64];
	struct {
		char path[128], old[64];
	} files[SAAKM_CLEANUP_FILES];
} saakm_left;

/* Remember child @pid; when the list is full, forget those already reaped. */
static inline void saakm_track_child(pid_t pid)
{
	siginfo_t si;
	int n = 0;

	if (pid <= 0 || getpid() != saakm_left.owner)
		return;
	if (saakm_left.nr_kids == SAAKM_CLEANUP_KIDS) {
		for (int i = 0; i < SAAKM_CLEANUP_KIDS; i++)
			if (!waitid(P_PID, saakm_left.kids[i], &si, WEXITED | WNOHANG | WNOWAIT))
				saakm_left.kids[n++] = saakm_left.kids[i];
		saakm_left.nr_kids = n;
		if (n == SAAKM_CLEANUP_KIDS)
			return;
	}
	saakm_left.kids[saakm_left.nr_kids++] = pid;
}

/* Remember the module of @relpath (".../NAME.ko"), once. */
static inline void saakm_track_module(const char *relpath)
{
	const char *base = strrchr(relpath, '/') ? strrchr(relpath, '/') + 1 : relpath;
	size_t len = strcspn(base, ".");
	char name[64];

	if (len >= sizeof(name))
		return;
	memcpy(name, base, len);
	name[len] = 0;
	for (int i = 0; i < saakm_left.nr_mods; i++)
		if (!strcmp(saakm_left.mods[i], name))
			return;
	if (saakm_left.nr_mods < SAAKM_CLEANUP_MODS)
		strcpy(saakm_left.mods[saakm_left.nr_mods++], name);
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
	saakm_track_module(relpath);
	return policy_id(name);
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Tags for the suite runner, which reads them from the test binary:
 * SAAKM_TAG("timeout=300") is the C form of "# saakm-test: timeout=300".
 */
#define SAAKM_TAG_CAT(a, b)	a##b
#define SAAKM_TAG_NAME(n)	SAAKM_TAG_CAT(saakm_tag_, n)
#define SAAKM_TAG(s) \
	__attribute__((used)) static const char SAAKM_TAG_NAME(__LINE__)[] = "saakm-test: " s

static inline int write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(val, f) < 0 ? -1 : 0;
	return fclose(f) ? -1 : ret;
}

/* True while module @name is loaded (or loading, or unloading). */
static inline int module_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return access(path, F_OK) == 0;
}

/* finit_module($SAAKM_ROOT/@relpath, @params): 0 or -errno, without insmod. */
static inline int module_load(const char *relpath, const char *params)
{
	char path[512];
	const char *root = getenv("SAAKM_ROOT");
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", relpath);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0) ? -errno : 0;
	close(fd);
	if (!ret)
		saakm_track_module(relpath);
	return ret;
}

/*
 * Wait up to @limit_s for child @pid; its wait status in *@status. 0 if it
 * was reaped, -ETIMEDOUT if it is still running (it is left alone).
 */
static inline int reap_within(pid_t pid, double limit_s, int *status)
{
	/* a pidfd becomes readable when the child exits: no polling */
	struct pollfd pfd = { .fd = syscall(SYS_pidfd_open, pid, 0), .events = POLLIN };
	double end = now_s() + limit_s, left;
	int ret = -ETIMEDOUT;
	pid_t r;

	do {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid || r < 0) {
			ret = r < 0 ? -errno : 0;
			break;
		}
		left = end - now_s();
		if (pfd.fd >= 0 && left > 0)
			poll(&pfd, 1, (int)(left * 1000) + 1);
		else
			usleep(1000);
	} while (now_s() < end);
	if (ret == -ETIMEDOUT && waitpid(pid, status, WNOHANG) == pid)
		ret = 0;
	if (pfd.fd >= 0)
		close(pfd.fd);
	return ret;
}

/*
 * Reap the children in @pids (n of them) within @limit_s in all. Each one
 * reaped is set to 0 in @pids and counted in *@exited (if not NULL).
 * Return: how many of them exited with status 0.
 */
static inline int reap_all_within(pid_t *pids, int n, double limit_s, int *exited)
{
	double end = now_s() + limit_s;
	int left, good = 0, status;

	if (exited)
		*exited = 0;
	do {
		left = 0;
		for (int i = 0; i < n; i++) {
			if (pids[i] <= 0)
				continue;
			if (waitpid(pids[i], &status, WNOHANG) != pids[i]) {
				left++;
				continue;
			}
			pids[i] = 0;
			if (exited)
				(*exited)++;
			good += WIFEXITED(status) && WEXITSTATUS(status) == 0;
		}
		if (left)
			usleep(1000);
	} while (left && now_s() < end);
	return good;
}

/*
 * reap_within() for a child whose pid the test keeps in *@pid: 1 once it
 * is reaped (or already was: *@pid <= 0), *@pid then being 0, so that a
 * reaped pid is never waited for again; 0 if it still runs after @limit_s.
 * @status may be NULL.
 */
static inline int reap_pid(pid_t *pid, double limit_s, int *status)
{
	if (*pid <= 0)
		return 1;
	if (reap_within(*pid, limit_s, status) == -ETIMEDOUT)
		return 0;
	*pid = 0;
	return 1;
}

/*
 * Stop child *@pid, which was told to stop (or ends by itself): wait up to
 * @grace_s for it, then SIGKILL it and wait 5 s more.
 * Return: 0 if it ended by itself, 1 if it was killed, -1 if it is still
 * there (the cleanup at exit tries again).
 */
static inline int stop_child(pid_t *pid, double grace_s)
{
	if (reap_pid(pid, grace_s, NULL))
		return 0;
	kill(*pid, SIGKILL);
	if (reap_pid(pid, 5, NULL))
		return 1;
	printf("# child %d still there after SIGKILL\n", *pid);
	return -1;
}

/*
 * delete_module(@module) from a child, so that an unload that never returns
 * fails the test instead of hanging it: 0, -errno, or -ETIMEDOUT after
 * @limit_s (the child is then left stuck in the kernel). The time the
 * unload took goes to *@secs if @secs is not NULL.
 */
static inline int unload_module_within(const char *module, double limit_s, double *secs)
{
	double t0 = now_s();
	int status, ret;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(syscall(SYS_delete_module, module, O_NONBLOCK) ? errno : 0);
	ret = reap_within(pid, limit_s, &status);
	if (secs)
		*secs = now_s() - t0;
	if (ret)
		return ret;
	if (!WIFEXITED(status))
		return -EINTR;
	return -WEXITSTATUS(status);
}

/* SAAKM_TIMEOUT_SCALE (the debug pass is slower): 1 if unset. */
static inline int timeout_scale(void)
{
	const char *s = getenv("SAAKM_TIMEOUT_SCALE");

	return s && atoi(s) > 0 ? atoi(s) : 1;
}

/* An environment variable that is set to 1. */
static inline int env_is_1(const char *name)
{
	const char *v = getenv(name);

	return v && atoi(v) == 1;
}

/* The debug pass of make test (tests/all.sh sets SAAKM_DEBUG_PASS=1). */
static inline int debug_pass(void)
{
	return env_is_1("SAAKM_DEBUG_PASS");
}

/*
 * The size of a test's long part: the environment variable @env when it
 * is set to a positive number, else @ci in make test (the CI tier: the
 * smallest size that still walks every path once) and @full in make
 * test-full (SAAKM_FULL=1: the long rounds and soaks).
 */
static inline long tier_size(const char *env, long ci, long full)
{
	const char *v = getenv(env);

	if (v && atol(v) > 0)
		return atol(v);
	return env_is_1("SAAKM_FULL") ? full : ci;
}

/* rmmod @module, bounded (60 s times SAAKM_TIMEOUT_SCALE): 0, or -1 and why. */
static inline int unload_module(const char *module)
{
	int ret = unload_module_within(module, 60.0 * timeout_scale(), NULL);

	if (ret)
		printf("# rmmod %s: %s\n", module,
		       ret == -ETIMEDOUT ? "still running after the time limit" : strerror(-ret));
	return ret ? -1 : 0;
}

/*
 * Write @val to the sysfs (or any) file @path; the cleanup puts back what
 * the file held before the test's first sysfs_set() of it. 0 or -1.
 */
static inline int sysfs_set(const char *path, const char *val)
{
	int i, fd;
	ssize_t n;

	for (i = 0; i < saakm_left.nr_files; i++)
		if (!strcmp(saakm_left.files[i].path, path))
			break;
	if (i == saakm_left.nr_files && i < SAAKM_CLEANUP_FILES &&
	    strlen(path) < sizeof(saakm_left.files[i].path)) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd >= 0 ? read(fd, saakm_left.files[i].old,
				   sizeof(saakm_left.files[i].old) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			saakm_left.files[i].old[n] = 0;
			strcpy(saakm_left.files[i].path, path);
			saakm_left.nr_files++;
		}
	}
	return write_file(path, val);
}

/* The first line of @path, newline stripped, in @buf ("" if unreadable); 0 or -1. */
static inline int read_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ret = -1;

	buf[0] = 0;
	if (!f)
		return -1;
	if (fgets(buf, len, f)) {
		buf[strcspn(buf, "\n")] = 0;
		ret = 0;
	}
	fclose(f);
	return ret;
}

/*
 * Put the stall watchdog on CPU @cpu with a stall timeout of @stall_ms: all
 * unbound work items, the watchdog's among them, run there. A test then
 * knows where the watchdog runs (to look at another CPU from outside, or to
 * preempt it). Both files are put back at cleanup. 0 or -1.
 */
static inline int watchdog_on_cpu(int cpu, unsigned int stall_ms)
{
	char ms[16], mask[16];

	snprintf(ms, sizeof(ms), "%u", stall_ms);
	snprintf(mask, sizeof(mask), "%x", 1 << cpu);
	return sysfs_set("/sys/kernel/saakm/watchdog_timeout_ms", ms) ||
	       sysfs_set("/sys/devices/virtual/workqueue/cpumask", mask) ? -1 : 0;
}

/* Take CPU @cpu offline (@on 0) or online; it is online again at cleanup. */
static inline int set_cpu_online(int cpu, int on)
{
	char path[80];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return sysfs_set(path, on ? "1" : "0");
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
	saakm_track_child(pid);
	return pid;
}

/*
 * Wait for child @pid, up to 60 s times SAAKM_TIMEOUT_SCALE; true if it
 * exited with status 0. (One still running is killed by the cleanup.)
 */
static inline int reaped_ok(pid_t pid)
{
	int status, ret = reap_within(pid, 60.0 * timeout_scale(), &status);

	if (ret == -ETIMEDOUT)
		printf("# child %d still running after the time limit\n", pid);
	return !ret && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * Milliseconds until /proc/saakm/errors names policy @name, with
 * "KIND: REASON" copied to @reason; -1 after @limit_ms.
 */
static inline long wait_ejected(const char *name, char *reason, size_t len, long limit_ms)
{
	double t0 = now_s();

	while ((now_s() - t0) * 1000 < limit_ms) {
		if (!policy_error(name, reason, len))
			return (long)((now_s() - t0) * 1000);
		usleep(5000);
	}
	return -1;
}

/* Seconds until policy @name has no task attached (or is gone); -1 after @limit_s. */
static inline double wait_drained(const char *name, double limit_s)
{
	double t0 = now_s();

	do {
		if (policy_tasks(name) <= 0)
			return now_s() - t0;
		usleep(5000);
	} while (now_s() - t0 < limit_s);
	return -1;
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

/* CPU time of the calling thread, in ns. */
static inline long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Pin-and-spin workers, for forked children.
 *
 * spin_pinned(): pin the caller to @cpu, join policy @id (0: stay in its
 * class) and report the result in *@joined (1, or -errno; may be NULL),
 * then spin until *stop (stop_init()) or for @secs at most.
 * Return: 0, or 1 if it could not be pinned or join.
 */
static volatile int *stop;

/* Wait up to @secs for *@flag (set by a child) to be non-zero; its value. */
static inline int wait_flag(volatile int *flag, double secs)
{
	double end = now_s() + secs;

	while (!*flag && now_s() < end)
		usleep(200);
	return *flag;
}

/*
 * Wait up to 5 s for a child to report its join in *@joined (1, or -errno,
 * as spin_pinned() does). 0 if it joined; -1 after saying why, with @what.
 */
static inline int wait_joined(volatile int *joined, const char *what)
{
	int ret = wait_flag(joined, 5);

	if (ret == 1)
		return 0;
	printf("# %s: %s\n", what, ret ? strerror(-ret) : "timeout");
	return -1;
}

static inline int spin_pinned(int cpu, int id, double secs, volatile int *joined)
{
	double end = now_s() + secs;
	int ret = pin_to(0, cpu);

	if (!ret && id)
		ret = saakm_join(0, id, 0);
	if (joined)
		*joined = ret ? ret : 1;
	if (ret)
		return 1;
	while (!*stop && now_s() < end)
		;
	return 0;
}

/*
 * rt_spin(): SCHED_FIFO (priority 50) on @cpu, spinning for @secs: it
 * always ends by itself. *@started is set once it runs as RT, *@done when
 * it is about to end. Return: 0, or 1 if it could not become RT there.
 */
static inline int rt_spin(int cpu, double secs, volatile int *started, volatile int *done)
{
	struct sched_param sp = { .sched_priority = 50 };
	double end;

	if (pin_to(0, cpu) || sched_setscheduler(0, SCHED_FIFO, &sp))
		return 1;
	end = now_s() + secs;
	*started = 1;
	while (now_s() < end)
		;
	*done = 1;
	return 0;
}

/*
 * Kprobes that count calls of kernel functions (tracing/kprobe_profile).
 * Fill in @n, @name (probe names, unique to the test) and @sym (the
 * functions); kprobes_add() adds and enables them, kprobes_hits() reads
 * their hits so far, kprobes_remove() (call it from cleanup) takes away
 * those it added.
 */
struct kprobes {
	int n;
	const char * const *name, * const *sym;
	int made, mounted;
};

#define TRACING_DIR	"/sys/kernel/tracing"

/*
 * Append @line to tracefs file @file, so kprobe_events keeps its other
 * probes. Not fopen("a"): it seeks to the end, which seq files refuse.
 */
static inline int tracefs_append(const char *file, const char *line)
{
	char path[128];
	ssize_t len = strlen(line), n;
	int fd;

	snprintf(path, sizeof(path), TRACING_DIR "/%s", file);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return -1;
	n = write(fd, line, len);
	close(fd);
	return n == len ? 0 : -1;
}

/* Write @val to probe @i's enable file (a disabled kprobe is not armed). */
static inline int kprobe_enable(struct kprobes *k, int i, const char *val)
{
	char path[160];

	snprintf(path, sizeof(path), TRACING_DIR "/events/kprobes/%s/enable", k->name[i]);
	return write_file(path, val);
}

static inline void kprobes_remove(struct kprobes *k)
{
	char line[96];

	for (int i = 0; i < k->made; i++) {
		kprobe_enable(k, i, "0");
		snprintf(line, sizeof(line), "-:%s\n", k->name[i]);
		tracefs_append("kprobe_events", line);
	}
	k->made = 0;
	if (k->mounted)
		umount(TRACING_DIR);
	k->mounted = 0;
}

/* 0 once every probe is armed; -1 after saying which one failed. */
static inline int kprobes_add(struct kprobes *k)
{
	char line[96];

	if (access(TRACING_DIR "/kprobe_events", F_OK) &&
	    !mount("nodev", TRACING_DIR, "tracefs", 0, NULL))
		k->mounted = 1;
	for (int i = 0; i < k->n; i++) {
		snprintf(line, sizeof(line), "p:%s %s\n", k->name[i], k->sym[i]);
		if (tracefs_append("kprobe_events", line)) {
			printf("# adding the kprobe on %s: %s\n", k->sym[i], strerror(errno));
			return -1;
		}
		k->made = i + 1;
		if (kprobe_enable(k, i, "1")) {
			printf("# enabling the kprobe on %s: %s\n", k->sym[i], strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Each probe's hits so far into @hits[k->n] (name, hits, misses); 0 or -1. */
static inline int kprobes_hits(struct kprobes *k, long long *hits)
{
	char line[256], name[128];
	long long n;
	int found = 0;
	FILE *f = fopen(TRACING_DIR "/kprobe_profile", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %lld", name, &n) != 2)
			continue;
		for (int i = 0; i < k->n; i++)
			if (!strcmp(name, k->name[i])) {
				hits[i] = n;
				found++;
			}
	}
	if (f)
		fclose(f);
	return found == k->n ? 0 : -1;
}

/* Join policy @id (long, for ping_pong()'s @enter); 0 or -errno. */
static inline int enter_policy(long id)
{
	return saakm_join(0, id, 0);
}

/* One side of ping_pong(); exits 0 on success. */
static inline void pinger(int rounds, int cpu, int (*enter)(long), long arg,
			  int rd, int wr, int first)
{
	char c = 'x';

	if (pin_to(0, cpu) || (enter && enter(arg)))
		_exit(2);
	for (int i = 0; i < rounds; i++) {
		if (first && write(wr, &c, 1) != 1)
			_exit(3);
		if (read(rd, &c, 1) != 1)
			_exit(3);
		if (!first && write(wr, &c, 1) != 1)
			_exit(3);
	}
	_exit(0);
}

/* ping_pong()'s @cpu: child i on CPU i, so each CPU idles between messages. */
#define PING_PONG_SPREAD	(-1)

/*
 * ping_pong(): @rounds round trips of a byte between two children pinned
 * to @cpu (or PING_PONG_SPREAD), over two pipes, as perf bench sched pipe
 * does. Each child calls @enter(@arg) first (NULL: stay in the fair
 * class), e.g. enter_policy.
 * Return: 1 if both finished within 60 s (scaled); *@invol (may be NULL)
 * gets their involuntary context switches.
 */
static inline int ping_pong(int rounds, int cpu, int (*enter)(long), long arg,
			    long long *invol)
{
	double limit = 60.0 * timeout_scale();
	int ab[2], ba[2], st_a = -1, st_b = -1, ok;
	struct rusage r0, r1;
	pid_t kid[2];

	if (pipe(ab) || pipe(ba))
		return 0;
	getrusage(RUSAGE_CHILDREN, &r0);
	for (int i = 0; i < 2; i++) {
		kid[i] = fork();
		if (kid[i] == 0)
			pinger(rounds, cpu < 0 ? i : cpu, enter, arg, i ? ab[0] : ba[0],
			       i ? ba[1] : ab[1], !i);
		saakm_track_child(kid[i]);
	}
	ok = kid[0] > 0 && kid[1] > 0 && reap_within(kid[0], limit, &st_a) == 0 &&
	     reap_within(kid[1], limit, &st_b) == 0;
	getrusage(RUSAGE_CHILDREN, &r1);
	if (invol)
		*invol = r1.ru_nivcsw - r0.ru_nivcsw;
	for (int i = 0; i < 2; i++) {
		close(ab[i]);
		close(ba[i]);
	}
	return ok && WIFEXITED(st_a) && !WEXITSTATUS(st_a) && WIFEXITED(st_b) &&
	       !WEXITSTATUS(st_b);
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
 * A test that needs @n CPUs (the suite also runs with --cpus 1) calls this
 * first: with fewer online, it reports @what as skipped and exits.
 */
static inline void require_cpus(int n, const char *what)
{
	if (nr_cpus() >= n)
		return;
	tap_skip(what, "needs %d CPUs", n);
	exit(tap_done());
}

/*
 * Workers for forked children: they run until the parent sets *stop, a flag
 * in memory shared across fork (stop_init() maps it).
 */

/* @size bytes of zeroed memory shared with the children forked later. */
static inline void *shared_mem(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		printf("Bail out! mmap of %zu shared bytes: %s\n", size, strerror(errno));
		exit(1);
	}
	return p;
}

static inline void stop_init(void)
{
	stop = shared_mem(sizeof(*stop));
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

/*
 * The same workers, whose exit status also says whether they finished under
 * SCHED_NORMAL (WORKER_NOT_NORMAL if not): for tests that expect a policy
 * to hand its tasks back before they end.
 */
#define WORKER_NOT_NORMAL	3

static inline int finished_normal(int ret)
{
	if (ret)
		return ret;
	return sched_getscheduler(0) == SCHED_OTHER ? 0 : WORKER_NOT_NORMAL;
}

static inline int spinner_normal(long arg)
{
	return finished_normal(spinner(arg));
}

static inline int sleeper_normal(long usecs)
{
	return finished_normal(sleeper(usecs));
}

/*
 * The cleanup, run however a test ends: returning from main(), exit(), or
 * the SIGTERM (SIGINT) the suite's timeout sends. It puts back the files
 * sysfs_set() changed, kills and reaps the children spawn() started, and
 * unloads the modules load_policy() or module_load() loaded that are still
 * loaded; every wait is bounded. So a test that fails midway leaves no
 * policy, task or offline CPU behind for the tests after it. It sticks to
 * calls that are safe in a signal handler (no stdio, no malloc).
 */
static inline void saakm_say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && write(STDOUT_FILENO, buf, n < (int)sizeof(buf) ? n : (int)sizeof(buf) - 1) < 0)
		return;
}

/* Reap the killed children, for up to @secs; how many are still there. */
static inline int saakm_reap_left(double secs)
{
	double end = now_s() + secs;
	int left, status;

	do {
		left = 0;
		for (int i = 0; i < saakm_left.nr_kids; i++) {
			pid_t pid = saakm_left.kids[i];

			if (pid > 0 && waitpid(pid, &status, WNOHANG) == 0)
				left++;
			else
				saakm_left.kids[i] = 0;
		}
		if (left)
			usleep(10000);
	} while (left && now_s() < end);
	return left;
}

/*
 * Put back what sysfs_set() changed, newest first. The cleanup does it; a
 * test that must _exit() without the rest of the cleanup (its threads are
 * stuck in a policy it must not unload) calls it first.
 */
static inline void saakm_restore_files(void)
{
	int i, fd;

	for (i = saakm_left.nr_files - 1; i >= 0; i--) {
		fd = open(saakm_left.files[i].path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, saakm_left.files[i].old, strlen(saakm_left.files[i].old)) < 0)
			saakm_say("# cleanup: could not restore %s\n", saakm_left.files[i].path);
		if (fd >= 0)
			close(fd);
	}
	saakm_left.nr_files = 0;
}

static inline void saakm_cleanup_run(void)
{
	static int ran;
	int i, ret, status, left;

	if (getpid() != saakm_left.owner || ran++)
		return;
	saakm_restore_files();
	for (i = 0; i < saakm_left.nr_kids; i++)
		if (saakm_left.kids[i] > 0 && waitpid(saakm_left.kids[i], &status, WNOHANG) == 0)
			kill(saakm_left.kids[i], SIGKILL);
	/* a task lost in a policy dies only once the policy lets it go */
	left = saakm_reap_left(3);
	for (i = 0; i < saakm_left.nr_mods; i++) {
		if (!module_loaded(saakm_left.mods[i]))
			continue;
		saakm_say("# cleanup: rmmod %s (the test left it loaded)\n", saakm_left.mods[i]);
		ret = unload_module_within(saakm_left.mods[i], 30, NULL);
		if (ret == -ETIMEDOUT)
			saakm_say("# cleanup: rmmod %s still running after 30 s\n", saakm_left.mods[i]);
		else if (ret)
			saakm_say("# cleanup: rmmod %s failed: errno %d\n", saakm_left.mods[i], -ret);
	}
	if (left && (left = saakm_reap_left(5)))
		saakm_say("# cleanup: %d children still there after SIGKILL\n", left);
}

static void saakm_cleanup_at_exit(void)
{
	fflush(stdout);		/* keep the test's own lines first */
	saakm_cleanup_run();
}

static void saakm_cleanup_signal(int sig)
{
	saakm_cleanup_run();
	signal(sig, SIG_DFL);
	raise(sig);
}

__attribute__((constructor)) static void saakm_cleanup_init(void)
{
	struct sigaction sa = { .sa_handler = saakm_cleanup_signal };

	saakm_left.owner = getpid();
	atexit(saakm_cleanup_at_exit);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

#endif /* SAAKM_TEST_H */
