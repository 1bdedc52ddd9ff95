/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libsaakm: a small C API for moving tasks (including the caller) onto a
 * SaaKM scheduling policy and for reading /proc/saakm. Used by the saakm(1)
 * CLI in tools/saakm.c; link with libsaakm.a and add
 * -I<repo>/build/uapi (for <linux/saakm.h>).
 *
 *	int id = saakm_policy_id("fifo");
 *	if (id < 0 || (id = saakm_set(0, id, NULL, 0, 0)) < 0)
 *		fprintf(stderr, "%s\n", saakm_strerror(id));
 *
 * Every function returns a negative errno on failure. The /proc/saakm
 * directory can be overridden with the SAAKM_PROC environment variable
 * (for tests against fixture files).
 */
#ifndef SAAKM_LIB_H
#define SAAKM_LIB_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/saakm.h>

#define SCHED_SAAKM		8
#define SAAKM_RESET_ON_FORK	0x01	/* children leave the policy */
#define SCHED_FLAG_RESET_ON_FORK	0x01
#define SCHED_ATTR_SIZE_VER0		48
#define SCHED_ATTR_SIZE_VER2		72

/*
 * struct sched_attr of <linux/sched/types.h> with the SaaKM fields, for
 * programs that call sched_setattr()/sched_getattr() themselves: the libc
 * headers of older distributions predate SCHED_ATTR_SIZE_VER2.
 */
struct saakm_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
	/* SCHED_ATTR_SIZE_VER2 */
	uint32_t sched_saakm_id;
	uint32_t sched_saakm_attr_size;
	uint64_t sched_saakm_attr;
};
static_assert(sizeof(struct saakm_sched_attr) == SCHED_ATTR_SIZE_VER2,
	      "sched_attr VER2 layout");

struct saakm_policy_info {
	int id;
	int tasks;
	char name[SAAKM_NAME_LEN];
	char state[16];			/* enabled, disabling or ejected */
};

/* The /proc/saakm directory in use: $SAAKM_PROC or "/proc/saakm". */
const char *saakm_proc_root(void);

/* fopen() a file of /proc/saakm ("policies", "events", "errors"). */
FILE *saakm_proc_fopen(const char *file);

/*
 * Fill @out with up to @max loaded policies (@out may be NULL if @max is 0).
 * Return: the number of policies loaded (may exceed @max), -ENOSYS if the
 * kernel has no SaaKM, or another -errno.
 */
int saakm_list(struct saakm_policy_info *out, int max);

/*
 * Resolve a policy name or a decimal id to the id of a loaded policy.
 * Return: the id (> 0), -ENOENT if no such policy is loaded, -ENOSYS.
 */
int saakm_policy_id(const char *name_or_id);

/* Copy the name of loaded policy @id into @buf. Return: 0, -ENOENT, -ENOSYS. */
int saakm_policy_name(int id, char *buf, size_t len);

/*
 * Move task @pid (0: the caller) onto policy @id, keeping its nice value,
 * and pass it the policy-defined @blob of @size bytes (NULL, 0: none).
 * @flags: SAAKM_RESET_ON_FORK or 0. @id SAAKM_ID_KEEP re-configures a task
 * already on a policy.
 * Return: 0, or -EPERM (needs CAP_SYS_NICE), -ESRCH (no such task),
 * -E2BIG (blob larger than SAAKM_ATTR_MAX_SIZE), -EINVAL (unknown or
 * disabling policy, or the policy refused the blob), -ENOSYS (no SaaKM).
 */
int saakm_set(pid_t pid, int id, const void *blob, size_t size, unsigned flags);

/* Like saakm_set(), but also set the task's nice value to @nice. */
int saakm_set_nice(pid_t pid, int id, int nice, const void *blob, size_t size,
		   unsigned flags);

/*
 * Read task @pid's Linux scheduling policy (SCHED_OTHER, ..., SCHED_SAAKM)
 * and, if @id is not NULL, its SaaKM policy id (0 unless SCHED_SAAKM).
 * @prio and @reset_on_fork may be NULL.
 * Return: the Linux policy (>= 0) or -errno (-ESRCH: no such task).
 */
int saakm_get_full(pid_t pid, int *id, int *prio, int *reset_on_fork);
int saakm_get(pid_t pid, int *id);

/* Name of a Linux scheduling policy: "SCHED_OTHER", ..., "SCHED_SAAKM". */
const char *saakm_sched_name(int policy);

/* A helpful message for an error returned above (negative or positive errno). */
const char *saakm_strerror(int err);

#endif /* SAAKM_LIB_H */
