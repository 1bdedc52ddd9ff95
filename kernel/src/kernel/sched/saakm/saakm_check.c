// SPDX-License-Identifier: GPL-2.0
/*
 * The rules that judge a policy, written once for the kernel and the host.
 *
 * The class (saakm_policy.c, saakm_safety.c) and libusim (tools/usim), which
 * runs policies on the host for their unit tests and replays, compile this
 * file as it is, so that a policy that passes on one side is judged by the
 * same rules on the other: which ops tables may register, which state
 * changes the transition table allows, which callback may make which
 * change, and the names that errors print. Nothing here takes a lock or
 * reads per-CPU or per-policy state: callers pass what they know. It uses
 * only <linux/saakm.h>, the subset a policy sees, which libusim provides,
 * and the transition table of the recording ABI.
 */
#include <linux/saakm.h>
#include <uapi/linux/saakm_replay.h>	/* SAAKM_TRANSITIONS() */
#include "saakm_check.h"

/**
 * saakm_ops_valid - may this ops table register?
 * @ops: the table a policy passes to saakm_register_policy()
 *
 * The mandatory callbacks are set, balancing has a balance_pick() to take
 * tasks with (and a period if the class is to call balancing_select()),
 * and the name fits.
 *
 * Return: true if @ops may register.
 */
bool saakm_ops_valid(const struct saakm_ops *ops)
{
	if (!ops->new_place || !ops->unblock_place || !ops->block ||
	    !ops->schedule || !ops->terminate)
		return false;
	if ((ops->newly_idle || ops->balancing_select) && !ops->balance_pick)
		return false;
	if (ops->balancing_select && !ops->balance_ms)
		return false;
	return ops->name[0] && strnlen(ops->name, SAAKM_NAME_LEN) < SAAKM_NAME_LEN;
}

/*
 * Transitions a policy may make: SAAKM_TRANSITIONS() in
 * <uapi/linux/saakm_replay.h>, a byte of target states per source state.
 */
#define SAAKM_ALLOWED_BIT(from, to)	| (BIT(SAAKM_##to) << (8 * SAAKM_##from))
static const u64 saakm_allowed = 0 SAAKM_TRANSITIONS(SAAKM_ALLOWED_BIT);
#undef SAAKM_ALLOWED_BIT

/**
 * saakm_transition_ok - does the transition table allow @from -> @to?
 * @from: the task's state
 * @to: the state a policy asks for
 *
 * Return: true if the table lists the transition.
 */
bool saakm_transition_ok(enum saakm_task_state from, enum saakm_task_state to)
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
bool saakm_callback_may(enum saakm_event ev, const struct task_struct *for_task,
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
enum saakm_pull_verdict saakm_pull_verdict(enum saakm_task_state state, bool on_src,
					   bool queued, bool running, bool can_move)
{
	if (state != SAAKM_MIGRATING || !on_src)
		return SAAKM_PULL_BAD;
	if (running)
		return SAAKM_PULL_GIVE_BACK;
	return queued && can_move ? SAAKM_PULL_MOVE : SAAKM_PULL_BAD;
}

#define SAAKM_STATE_NAME(NAME)	#NAME,
static const char * const saakm_state_names[SAAKM_NR_STATES] = {
	SAAKM_STATES(SAAKM_STATE_NAME)
};

/**
 * saakm_state_name - the name of a task state, as errors print it
 * @state: the state
 *
 * Return: "READY", "RUNNING", ..., or "?" for a value out of range.
 */
const char *saakm_state_name(enum saakm_task_state state)
{
	return state < SAAKM_NR_STATES ? saakm_state_names[state] : "?";
}

#define SAAKM_EVENT_NAME(NAME, name)	#name,
static const char * const saakm_event_names[SAAKM_NR_EVENTS] = {
	SAAKM_EVENTS(SAAKM_EVENT_NAME)
};

/**
 * saakm_event_name - the name of an event: its callback, and its counter
 * @ev: the event
 *
 * Return: "new_prepare", ..., or "?" for a value out of range.
 */
const char *saakm_event_name(enum saakm_event ev)
{
	return ev < SAAKM_NR_EVENTS ? saakm_event_names[ev] : "?";
}

#define SAAKM_EJECT_KIND_NAME(NAME, name)	name,
static const char * const saakm_eject_kind_names[SAAKM_NR_EJECT_KINDS] = {
	SAAKM_EJECT_KINDS(SAAKM_EJECT_KIND_NAME)
};

/**
 * saakm_eject_kind_name - the name of an ejection kind
 * @kind: what found the fault
 *
 * Return: the name /proc/saakm/errors shows as kind= ("stall", ...), or
 * "?" for a value out of range.
 */
const char *saakm_eject_kind_name(enum saakm_eject_kind kind)
{
	return kind < SAAKM_NR_EJECT_KINDS ? saakm_eject_kind_names[kind] : "?";
}
