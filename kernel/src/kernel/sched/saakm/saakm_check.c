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
#include "saakm_check.h"

/**
 * saakm_ops_valid - may this ops table register?
 * @ops: the table a policy passes to saakm_register_policy()
 *
 * The mandatory callbacks are set, balancing has a balance_pick() to take
 * tasks with (and a period if the class is to call balancing_select()),
 * the name fits, and a table that upgrades a loaded policy can import its
 * state.
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
	if (ops->upgrade && !ops->upgrade_import)
		return false;
	return ops->name[0] && strnlen(ops->name, SAAKM_NAME_LEN) < SAAKM_NAME_LEN;
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
