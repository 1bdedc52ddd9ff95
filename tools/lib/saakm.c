// SPDX-License-Identifier: GPL-2.0
/*
 * libsaakm: join SaaKM scheduling policies with sched_setattr() and parse
 * /proc/saakm. See saakm.h for the API. The C library's headers predate
 * SCHED_SAAKM and the SCHED_ATTR_SIZE_VER2 fields, so the syscalls are
 * made directly with our own copy of struct sched_attr.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "saakm.h"


const char *saakm_proc_root(void)
{
	const char *root = getenv("SAAKM_PROC");

	return root && *root ? root : "/proc/saakm";
}

FILE *saakm_proc_fopen(const char *file)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", saakm_proc_root(), file);
	return fopen(path, "re");
}

static int have_saakm(void)
{
	struct stat st;

	return stat(saakm_proc_root(), &st) == 0 && S_ISDIR(st.st_mode);
}

/* Call @fn for each well-formed line of "policies"; stop if it returns != 0. */
static int each_policy(int (*fn)(const struct saakm_policy_info *, void *),
		       void *arg)
{
	struct saakm_policy_info pi;
	char line[256], name[256];
	int n = 0, ret = 0;
	FILE *f;

	f = saakm_proc_fopen("policies");
	if (!f)
		return errno == ENOENT || errno == ENOTDIR ? -ENOSYS : -errno;
	while (!ret && fgets(line, sizeof(line), f)) {
		memset(&pi, 0, sizeof(pi));
		/* "ID NAME TASKS STATE"; skip anything else */
		if (sscanf(line, "%d %255s %d %15s", &pi.id, name, &pi.tasks,
			   pi.state) != 4 || pi.id <= 0 || strlen(name) >= SAAKM_NAME_LEN)
			continue;
		strcpy(pi.name, name);
		ret = fn ? fn(&pi, arg) : 0;
		n++;
	}
	fclose(f);
	return ret ? ret : n;
}

struct list_arg {
	struct saakm_policy_info *out;
	int max, n;
};

static int list_one(const struct saakm_policy_info *pi, void *arg)
{
	struct list_arg *la = arg;

	if (la->n < la->max)
		la->out[la->n] = *pi;
	la->n++;
	return 0;
}

int saakm_list(struct saakm_policy_info *out, int max)
{
	struct list_arg la = { out, out ? max : 0, 0 };

	return each_policy(list_one, &la);
}

struct find_arg {
	const char *name;
	int id;
	struct saakm_policy_info found;
};

static int find_one(const struct saakm_policy_info *pi, void *arg)
{
	struct find_arg *fa = arg;

	if ((fa->name && strcmp(pi->name, fa->name)) || (!fa->name && pi->id != fa->id))
		return 0;
	fa->found = *pi;
	return 1;
}

static int find(const char *name, int id, struct saakm_policy_info *pi)
{
	struct find_arg fa = { name, id, { 0 } };
	int ret = each_policy(find_one, &fa);

	/* each_policy() returns the number of lines when nothing matched */
	if (ret < 0)
		return ret;
	if (!fa.found.id)
		return -ENOENT;
	*pi = fa.found;
	return 0;
}

int saakm_policy_id(const char *name_or_id)
{
	struct saakm_policy_info pi;
	const char *s;
	char *end;
	long id;
	int ret;

	if (!name_or_id || !*name_or_id)
		return -ENOENT;
	ret = find(name_or_id, 0, &pi);
	if (ret != -ENOENT)
		return ret ? ret : pi.id;
	for (s = name_or_id; *s; s++)
		if (!isdigit((unsigned char)*s))
			return -ENOENT;
	errno = 0;
	id = strtol(name_or_id, &end, 10);
	if (errno || id <= 0 || id > INT32_MAX)
		return -ENOENT;
	ret = find(NULL, (int)id, &pi);
	return ret ? ret : pi.id;
}

int saakm_policy_name(int id, char *buf, size_t len)
{
	struct saakm_policy_info pi;
	int ret = find(NULL, id, &pi);

	if (!ret && len)
		snprintf(buf, len, "%s", pi.name);
	return ret;
}

static int getattr(pid_t pid, struct saakm_sched_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	if (syscall(SYS_sched_getattr, pid, attr, sizeof(*attr), 0))
		return -errno;
	return 0;
}

int saakm_set_nice(pid_t pid, int id, int nice, const void *blob, size_t size,
		   unsigned flags)
{
	struct saakm_sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_SAAKM,
		.sched_nice = nice,
		.sched_saakm_id = id,
		.sched_saakm_attr_size = blob ? size : 0,
		.sched_saakm_attr = blob ? (uintptr_t)blob : 0,
	};
	int err;

	if (id < 0 || flags & ~SAAKM_RESET_ON_FORK)
		return -EINVAL;
	if (blob && size > SAAKM_ATTR_MAX_SIZE)
		return -E2BIG;
	if (flags & SAAKM_RESET_ON_FORK)
		attr.sched_flags |= SCHED_FLAG_RESET_ON_FORK;
	if (!syscall(SYS_sched_setattr, pid, &attr, 0))
		return 0;
	err = errno;
	/* A kernel without the VER2 fields says E2BIG and writes back its size. */
	if (err == E2BIG && attr.size < SCHED_ATTR_SIZE_VER2)
		return -ENOSYS;
	if (err == EINVAL && !have_saakm())
		return -ENOSYS;
	return -err;
}

int saakm_set(pid_t pid, int id, const void *blob, size_t size, unsigned flags)
{
	struct saakm_sched_attr cur;
	int ret = getattr(pid, &cur);

	if (ret)
		return ret;
	return saakm_set_nice(pid, id, cur.sched_nice, blob, size, flags);
}

int saakm_get_full(pid_t pid, int *id, int *prio, int *reset_on_fork)
{
	struct saakm_sched_attr attr;
	int ret = getattr(pid, &attr);

	if (ret)
		return ret;
	if (id)
		*id = attr.sched_policy == SCHED_SAAKM ? (int)attr.sched_saakm_id : 0;
	if (prio)
		*prio = attr.sched_priority;
	if (reset_on_fork)
		*reset_on_fork = !!(attr.sched_flags & SCHED_FLAG_RESET_ON_FORK);
	return attr.sched_policy;
}

int saakm_get(pid_t pid, int *id)
{
	return saakm_get_full(pid, id, NULL, NULL);
}

const char *saakm_sched_name(int policy)
{
	static const char *const names[] = {
		"SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH",
		"SCHED_ISO", "SCHED_IDLE", "SCHED_DEADLINE", "SCHED_EXT",
		"SCHED_SAAKM",
	};

	if (policy < 0 || policy >= (int)(sizeof(names) / sizeof(names[0])))
		return "SCHED_UNKNOWN";
	return names[policy];
}

const char *saakm_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case ENOSYS:
		return "this kernel has no SaaKM support (/proc/saakm is missing)";
	case ENOENT:
		return "no such policy is loaded (see 'saakm list')";
	case EPERM:
		return "permission denied: joining a SaaKM policy needs CAP_SYS_NICE (try as root)";
	case ESRCH:
		return "no such process";
	case E2BIG:
		return "policy attribute blob too large (at most 4096 bytes)";
	case EINVAL:
		return "invalid argument: the policy is not enabled or refused the attributes";
	default:
		return strerror(err < 0 ? -err : err);
	}
}
