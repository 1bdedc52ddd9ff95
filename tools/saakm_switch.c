// SPDX-License-Identifier: GPL-2.0
/*
 * saakm switch A B: move every task of policy A onto policy B.
 *
 * Each task moves with one sched_setattr() from A to B, which the kernel
 * carries out as a leave of A and a join of B under the task's runqueue
 * lock: the task is never in SCHED_NORMAL on the way. A task that B
 * refuses (its checkparam_attr(), or an error) goes back to SCHED_NORMAL
 * with its nice value, and is reported. Tasks that A's tasks fork while
 * the switch runs join A; the walk is repeated until one finds none to
 * move, a bounded number of times. A task that is exiting cannot change
 * policy, and leaves A by itself. Both policies must be loaded and enabled: an
 * ejected one is draining its tasks to SCHED_NORMAL.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "saakm.h"
#include "saakm_cli.h"

/* Walks of /proc before giving up on a policy whose tasks keep forking. */
#define SWITCH_ROUNDS	10

struct switch_count {
	int moved;
	int refused;
};

/* Task @tid back to SCHED_NORMAL, keeping its nice value and flags. */
static int to_normal(long tid, int reset_on_fork)
{
	struct saakm_sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = 0,	/* SCHED_NORMAL */
		.sched_flags = reset_on_fork ? SCHED_FLAG_RESET_ON_FORK : 0,
	};

	errno = 0;
	attr.sched_nice = getpriority(PRIO_PROCESS, tid);
	if (errno)
		return -errno;
	return syscall(SYS_sched_setattr, tid, &attr, 0) ? -errno : 0;
}

/*
 * Move task @tid if it is on policy @from. Return: 1 if it was moved or
 * refused, 0 if it is not on @from, or exiting (it leaves by itself).
 */
static int switch_one_task(long tid, int from, int to, struct switch_count *c)
{
	int id, rof, err;

	/* its policy (SCHED_*), or a negative errno */
	if (saakm_get_full(tid, &id, NULL, &rof) < 0 || id != from)
		return 0;
	err = saakm_set(tid, to, NULL, 0, rof ? SAAKM_RESET_ON_FORK : 0);
	if (err == -ESRCH)
		return 0;
	if (!err) {
		c->moved++;
		return 1;
	}
	err = to_normal(tid, rof);
	fprintf(stderr, "saakm: task %ld refused (%s): %s\n", tid,
		saakm_strerror(err ? err : -EINVAL),
		err ? "it stays where it was" : "now SCHED_NORMAL");
	c->refused++;
	return 1;
}

/* One walk of every thread. Return: tasks of @from moved or refused. */
static int switch_round(int from, int to, struct switch_count *c)
{
	struct dirent *p, *t;
	DIR *procs, *tasks;
	char path[64];
	int seen = 0;
	long pid, tid;
	char *end;

	procs = opendir("/proc");
	while (procs && (p = readdir(procs))) {
		pid = strtol(p->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task", pid);
		tasks = opendir(path);
		while (tasks && (t = readdir(tasks))) {
			tid = strtol(t->d_name, &end, 10);
			if (!*end && tid > 0)
				seen += switch_one_task(tid, from, to, c);
		}
		if (tasks)
			closedir(tasks);
	}
	if (procs)
		closedir(procs);
	return seen;
}

/* Policy @name, which must be enabled. Return: its id, or a negative status. */
static int enabled_policy(const char *name)
{
	struct saakm_policy_info pi;
	int id = saakm_policy_id(name), ret;

	if (id < 0)
		return -cli_policy_error(name, id);
	ret = saakm_policy_name(id, pi.name, sizeof(pi.name));
	if (!ret)
		ret = saakm_policy_get(pi.name, &pi);
	if (ret)
		return -cli_policy_error(name, ret);
	if (pi.state_id != SAAKM_POLICY_ENABLED) {
		fprintf(stderr, "saakm: policy %s is %s: no task is moved\n", pi.name, pi.state);
		return -1;
	}
	return id;
}

/* saakm switch FROM TO */
int cmd_switch_all(int argc, char **argv)
{
	struct switch_count c = { 0 };
	int from, to, round, left = 0;

	if (argc != 3)
		return cli_usage("switch needs two policies: FROM TO");
	from = enabled_policy(argv[1]);
	if (from < 0)
		return -from;
	to = enabled_policy(argv[2]);
	if (to < 0)
		return -to;
	if (from == to)
		return cli_usage("'%s' and '%s' are the same policy", argv[1], argv[2]);

	for (round = 0; round < SWITCH_ROUNDS; round++) {
		left = switch_round(from, to, &c);
		if (!left)
			break;
	}
	printf("moved %d tasks from %s to %s", c.moved, argv[1], argv[2]);
	if (c.refused)
		printf("; %d refused by %s (listed above)", c.refused, argv[2]);
	printf("\n");
	if (left) {
		fprintf(stderr, "saakm: %s still had tasks after %d walks (they fork faster)\n",
			argv[1], SWITCH_ROUNDS);
		return 1;
	}
	return c.refused ? 1 : 0;
}
