/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules that judge a policy (saakm_check.c), shared by the class and by
 * libusim, the host's simulator of it: both compile saakm_check.c as it is.
 */
#ifndef _KERNEL_SCHED_SAAKM_CHECK_H
#define _KERNEL_SCHED_SAAKM_CHECK_H

#include <linux/saakm_replay.h>	/* SAAKM_TRANSITIONS(), from the uapi headers */

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
const char *saakm_state_name(enum saakm_task_state state);
const char *saakm_event_name(enum saakm_event ev);
const char *saakm_eject_kind_name(enum saakm_eject_kind kind);

/*
 * The rules checked on the hot paths (every state change, every pull) are
 * inline here, so that the class pays no call for them. Transitions a
 * policy may make: SAAKM_TRANSITIONS() in <uapi/linux/saakm_replay.h>, a
 * byte of target states per source state.
 */
#define SAAKM_ALLOWED_BIT(from, to)	| (BIT(SAAKM_##to) << (8 * SAAKM_##from))
static const u64 saakm_allowed __maybe_unused = 0 SAAKM_TRANSITIONS(SAAKM_ALLOWED_BIT);
#undef SAAKM_ALLOWED_BIT

/**
 * saakm_left_state - the state a callback must leave its task in
 * @ev: new_place, unblock_place, block or terminate
 *
 * Return: %SAAKM_READY after a placement, %SAAKM_BLOCKED after block(),
 * %SAAKM_TERMINATED after terminate(). The class reports any other state
 * (SAAKM_ERR_LEFT_STATE) and repairs the task itself.
 */
static inline enum saakm_task_state saakm_left_state(enum saakm_event ev)
{
	switch (ev) {
	case SAAKM_EV_BLOCK:
		return SAAKM_BLOCKED;
	case SAAKM_EV_TERMINATE:
		return SAAKM_TERMINATED;
	default:
		return SAAKM_READY;
	}
}

/**
 * saakm_transition_ok - does the transition table allow @from -> @to?
 * @from: the task's state
 * @to: the state a policy asks for
 *
 * Return: true if the table lists the transition.
 */
static inline bool saakm_transition_ok(enum saakm_task_state from,
				       enum saakm_task_state to)
{
	return from < SAAKM_NR_STATES && to < SAAKM_NR_STATES &&
	       (saakm_allowed >> (8 * from)) & BIT(to);
}

/**
 * saakm_callback_may - may the running callback move @p to @to?
 * @ev: the callback running on this CPU (SAAKM_NR_EVENTS: none)
 * @for_task: the task the callback is about; for schedule(), the task it
 *	already made RUNNING (NULL: none yet)
 * @p: the task whose state changes
 * @to: its new state
 *
 * Three targets are tied to one callback: BLOCKED only from block() for
 * that task, TERMINATED only from terminate() for that task, MIGRATING only
 * from balance_pick(). Anything else would leave a runnable task in no
 * runqueue and on no CPU. RUNNING is for the one task schedule() returns:
 * a second one would run on no CPU. The caller records the first.
 *
 * Return: true if the change is allowed in this callback.
 */
static inline bool saakm_callback_may(enum saakm_event ev, const struct task_struct *for_task,
				      const struct task_struct *p, enum saakm_task_state to)
{
	switch (to) {
	case SAAKM_RUNNING:
		return ev == SAAKM_EV_SCHEDULE && (!for_task || for_task == p);
	case SAAKM_BLOCKED:
		return ev == SAAKM_EV_BLOCK && for_task == p;
	case SAAKM_TERMINATED:
		return ev == SAAKM_EV_TERMINATE && for_task == p;
	case SAAKM_MIGRATING:
		return ev == SAAKM_EV_BALANCE_PICK;
	default:
		return true;
	}
}

/**
 * saakm_pull_verdict - judge the task a balance_pick() returned
 * @state: the task's state
 * @on_src: the task is on the source CPU's runqueue
 * @queued: the task is runnable (enqueued in the class)
 * @running: the task is still the source CPU's running task
 * @can_move: its affinity allows the destination, which is active, and it
 *	is not in a migrate-disabled section
 *
 * balance_pick() must hand over a task it made MIGRATING on the source CPU.
 * One such task may still be running there: a task that joined the policy
 * while it ran is READY before its CPU switches away from it, and the
 * policy cannot know. That is not the policy's fault: the task goes back
 * where it was, through unblock_place().
 *
 * Return: move the task, give it back, or eject the policy.
 */
static inline enum saakm_pull_verdict
saakm_pull_verdict(enum saakm_task_state state, bool on_src, bool queued, bool running,
		   bool can_move)
{
	if (state != SAAKM_MIGRATING || !on_src)
		return SAAKM_PULL_BAD;
	if (running)
		return SAAKM_PULL_GIVE_BACK;
	return queued && can_move ? SAAKM_PULL_MOVE : SAAKM_PULL_BAD;
}

/**
 * saakm_pick_ok - may the class run the task a policy's schedule() returned?
 * @ours: the task belongs to the policy that returned it
 * @on_cpu: the task's CPU is the one that asked
 * @queued: the task is runnable (enqueued in the class)
 * @state: the task's state after the call
 *
 * Return: true for a runnable task of the policy, on this CPU, that the
 * policy moved to RUNNING; anything else ejects the policy.
 */
static inline bool saakm_pick_ok(bool ours, bool on_cpu, bool queued,
				 enum saakm_task_state state)
{
	return ours && on_cpu && queued && state == SAAKM_RUNNING;
}

/**
 * saakm_cpu_ok - may @p go to the CPU a prepare callback chose?
 * @p: the task
 * @cpu: the CPU the callback returned
 * @nr_cpus: CPU numbers are below this (nr_cpu_ids)
 *
 * The affinity is the policy's to respect. An offline CPU of it is not an
 * error: the task may have slept while its CPU went down, or the CPU may
 * go down after the policy looked; the core replaces it with an allowed
 * online CPU (select_fallback_rq()), as for every class.
 *
 * Return: true if @cpu exists and is in @p's affinity.
 */
static inline bool saakm_cpu_ok(const struct task_struct *p, int cpu, unsigned int nr_cpus)
{
	return cpu >= 0 && (unsigned int)cpu < nr_cpus && cpumask_test_cpu(cpu, p->cpus_ptr);
}

#endif /* _KERNEL_SCHED_SAAKM_CHECK_H */
