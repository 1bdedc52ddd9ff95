/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules that judge a policy (saakm_check.c), shared by the class and by
 * libusim, the host's simulator of it: both compile saakm_check.c as it is.
 */
#ifndef _KERNEL_SCHED_SAAKM_CHECK_H
#define _KERNEL_SCHED_SAAKM_CHECK_H

#define SAAKM_EJECT_KIND_ENUM(NAME, name)	SAAKM_EJECT_##NAME,

/* What found a policy's fault: SAAKM_EJECT_KINDS() in <uapi/linux/saakm.h>. */
enum saakm_eject_kind {
	SAAKM_EJECT_KINDS(SAAKM_EJECT_KIND_ENUM)
	SAAKM_NR_EJECT_KINDS
};

/*
 * The texts of errors that both the class and libusim report, after the
 * ejection kind: written once, so that a policy's failure reads the same
 * on the host as in the kernel.
 */
/* callback, pid, state */
#define SAAKM_ERR_LEFT_STATE		"%s left task %d in state %s"
/* cpu, pid, the task's cpu, its state */
#define SAAKM_ERR_BAD_SCHEDULE		"schedule(%d) returned task %d (cpu %d, state %s)"
/* src cpu, dst cpu, pid */
#define SAAKM_ERR_BAD_BALANCE_PICK	"balance_pick(%d, %d) returned task %d that cannot move"
/* cpu, pid */
#define SAAKM_ERR_OUTSIDE_AFFINITY	"chose CPU %d for task %d outside its affinity"
/* cpu, ms, number of READY tasks */
#define SAAKM_ERR_NO_PICK		"cpu %d picked no task for %u ms with %u ready"

/* What the class does with the task a balance_pick() returned. */
enum saakm_pull_verdict {
	SAAKM_PULL_MOVE,	/* move it to the destination CPU */
	SAAKM_PULL_GIVE_BACK,	/* not movable yet: back through unblock_place() */
	SAAKM_PULL_BAD,		/* the policy returned a task it may not move */
};

bool saakm_ops_valid(const struct saakm_ops *ops);
enum saakm_pull_verdict saakm_pull_verdict(enum saakm_task_state state, bool on_src,
					   bool queued, bool running, bool can_move);
bool saakm_transition_ok(enum saakm_task_state from, enum saakm_task_state to);
bool saakm_callback_may(enum saakm_event ev, const struct task_struct *for_task,
			const struct task_struct *p, enum saakm_task_state to);
const char *saakm_state_name(enum saakm_task_state state);
const char *saakm_event_name(enum saakm_event ev);
const char *saakm_eject_kind_name(enum saakm_eject_kind kind);

#endif /* _KERNEL_SCHED_SAAKM_CHECK_H */
