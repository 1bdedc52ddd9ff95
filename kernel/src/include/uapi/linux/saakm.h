/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * SaaKM user-space ABI: what a program needs, besides SCHED_SAAKM and the
 * sched_attr fields in <linux/sched/types.h>, to move tasks onto a policy.
 *
 * A task joins a policy with sched_setattr() and:
 *   attr.size                 >= SCHED_ATTR_SIZE_VER2
 *   attr.sched_policy          = SCHED_SAAKM
 *   attr.sched_saakm_id        = the policy id (see /proc/saakm/policies)
 *   attr.sched_saakm_attr      = optional pointer to a policy-defined blob
 *   attr.sched_saakm_attr_size = its size, at most SAAKM_ATTR_MAX_SIZE
 * sched_getattr() reports the id back in sched_saakm_id.
 */
#ifndef _UAPI_LINUX_SAAKM_H
#define _UAPI_LINUX_SAAKM_H

/* Largest policy attribute blob accepted by sched_setattr() (else E2BIG). */
#define SAAKM_ATTR_MAX_SIZE	4096

/* Longest policy name, including the terminating NUL. */
#define SAAKM_NAME_LEN		32

/* sched_saakm_id value meaning "keep the current policy" (sched_setparam). */
#define SAAKM_ID_KEEP		0

/*
 * Buckets of the wake-to-run latency histogram (wake_hist= in
 * /proc/saakm/cpus): bucket 0 counts waits under 1 us, bucket i waits of
 * [2^(i-1), 2^i) us, and the last one every longer wait.
 */
#define SAAKM_WAKE_HIST_BUCKETS	26

/*
 * The names below are each written once, here, as X-macro lists: the kernel
 * builds its enums, /proc/saakm columns and tracepoint symbols from them,
 * and user space (libsaakm, tests, replay) its tables. Append only: a
 * value's position is its number.
 *
 * Task states (enum saakm_task_state, SAAKM_<name>): X(name).
 */
#define SAAKM_STATES(X)							\
	X(NOT_QUEUED)	/* joined, not yet placed on a CPU */		\
	X(READY)	/* waiting in a policy runqueue */		\
	X(READY_TICK)	/* preempted from tick(), leaves the CPU next */ \
	X(RUNNING)	/* chosen by schedule() */			\
	X(BLOCKED)	/* not runnable, or ousted by a migration */	\
	X(MIGRATING)	/* taken off a runqueue by balancing */		\
	X(TERMINATED)	/* left the policy */

/*
 * Events (enum saakm_event, SAAKM_EV_<NAME>): X(NAME, name), where name is
 * the callback in struct saakm_ops and the counter in /proc/saakm/events.
 * "migrated" counts tasks the class moved between CPUs; it has no callback.
 */
#define SAAKM_EVENTS(X)							\
	X(NEW_PREPARE, new_prepare)					\
	X(NEW_PLACE, new_place)						\
	X(UNBLOCK_PREPARE, unblock_prepare)				\
	X(UNBLOCK_PLACE, unblock_place)					\
	X(BLOCK, block)							\
	X(YIELD, yield)							\
	X(TICK, tick)							\
	X(TERMINATE, terminate)						\
	X(SCHEDULE, schedule)						\
	X(NEWLY_IDLE, newly_idle)					\
	X(ENTER_IDLE, enter_idle)					\
	X(EXIT_IDLE, exit_idle)						\
	X(BALANCING_SELECT, balancing_select)				\
	X(BALANCE_PICK, balance_pick)					\
	X(CORE_ENTRY, core_entry)					\
	X(CORE_EXIT, core_exit)						\
	X(FREE_METADATA, free_metadata)					\
	X(CHECKPARAM_ATTR, checkparam_attr)				\
	X(SETPARAM_ATTR, setparam_attr)					\
	X(MIGRATED, migrated)						\
	X(PREEMPT, preempt)

/* Policy states (state= in /proc/saakm/policies): X(NAME, name). */
#define SAAKM_POLICY_STATES(X)						\
	X(ENABLED, enabled)	/* running its tasks */			\
	X(DISABLING, disabling)	/* being unregistered, tasks leaving */	\
	X(EJECTED, ejected)	/* stopped after an error, bypassed */

/*
 * Ejection kinds (enum saakm_eject_kind, SAAKM_EJECT_<NAME>; kind= in
 * /proc/saakm/errors): X(NAME, "name"). What found the fault is described
 * in docs/design.md, "Safety".
 */
#define SAAKM_EJECT_KINDS(X)						\
	X(STALL, "stall")	/* a ready task or a CPU waited too long */ \
	X(TRANSITION, "transition") /* a state change the table forbids */ \
	X(WRONG_CPU, "wrong-cpu") /* a CPU outside the task's affinity */ \
	X(BAD_PICK, "bad-pick")	/* a pick the class may not run or move */ \
	X(CALLBACK, "callback")	/* a callback left a task in a wrong state */ \
	X(ERROR, "error")	/* saakm_policy_error() */		\
	X(SYSRQ, "sysrq")	/* SysRq-K */

#endif /* _UAPI_LINUX_SAAKM_H */
