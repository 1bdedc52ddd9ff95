// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the rules that judge a policy, kernel/src/kernel/sched/
 * saakm/saakm_check.c, which the kernel and libusim both compile as it is:
 * which ops tables register; the transition table, checked against
 * SAAKM_TRANSITIONS() entry by entry; which callback may make which change;
 * the verdict on the task balance_pick() returns (including a task that
 * still runs on its CPU, which goes back through unblock_place() rather
 * than ejecting the policy, on both sides); the names errors print.
 *
 * Compiled like a policy, as t_rq.c is; it uses TAP directly.
 */
#include <linux/saakm.h>
#include <linux/saakm_replay.h>
#include <string.h>
#include "saakm_check.h"
#include "tap.h"
#include "usim.h"

static void cb_place(struct saakm_policy *pol, struct task_struct *p, int cpu) {}
static void cb_block(struct saakm_policy *pol, struct task_struct *p, int cpu) {}
static void cb_terminate(struct saakm_policy *pol, struct task_struct *p) {}
static struct task_struct *cb_schedule(struct saakm_policy *pol, int cpu) { return NULL; }
static struct task_struct *cb_pick(struct saakm_policy *pol, int src, int dst) { return NULL; }
static int cb_newly_idle(struct saakm_policy *pol, int cpu) { return 0; }

static struct saakm_ops minimal(void)
{
	return (struct saakm_ops){
		.name = "t", .new_place = cb_place, .unblock_place = cb_place,
		.block = cb_block, .schedule = cb_schedule, .terminate = cb_terminate,
	};
}

static void t_ops_valid(void)
{
	struct saakm_ops ops = minimal();

	TAP_CHECK(saakm_ops_valid(&ops), "ops: the five mandatory callbacks register");
	ops.schedule = NULL;
	TAP_CHECK(!saakm_ops_valid(&ops), "ops: without schedule(): refused");
	ops = minimal();
	ops.newly_idle = cb_newly_idle;
	TAP_CHECK(!saakm_ops_valid(&ops), "ops: newly_idle() without balance_pick(): refused");
	ops.balance_pick = cb_pick;
	TAP_CHECK(saakm_ops_valid(&ops), "ops: newly_idle() with balance_pick(): registers");
	ops.name[0] = '\0';
	TAP_CHECK(!saakm_ops_valid(&ops), "ops: an empty name: refused");
	ops = minimal();
	memset(ops.name, 'x', sizeof(ops.name));
	TAP_CHECK(!saakm_ops_valid(&ops), "ops: a name that fills the field: refused");
}

/* Every pair of states: allowed exactly when SAAKM_TRANSITIONS() lists it. */
static void t_transitions(void)
{
	bool listed[SAAKM_NR_STATES][SAAKM_NR_STATES] = { { false } };
	int from, to, wrong = 0;

#define LIST(FROM, TO) listed[SAAKM_##FROM][SAAKM_##TO] = true;
	SAAKM_TRANSITIONS(LIST)
#undef LIST
	for (from = 0; from < SAAKM_NR_STATES; from++)
		for (to = 0; to < SAAKM_NR_STATES; to++)
			if (saakm_transition_ok(from, to) != listed[from][to]) {
				printf("#   %s -> %s: table says %d\n", saakm_state_name(from),
				       saakm_state_name(to), listed[from][to]);
				wrong++;
			}
	TAP_CHECK(!wrong, "transitions: the table, pair by pair");
	TAP_CHECK(!saakm_transition_ok(SAAKM_NR_STATES, SAAKM_READY) &&
		  !saakm_transition_ok(SAAKM_READY, SAAKM_NR_STATES),
		  "transitions: out-of-range states refused");
}

static void t_callback_may(void)
{
	struct task_struct *a = usim_task(1), *b = usim_task(2);

	TAP_CHECK(saakm_callback_may(SAAKM_EV_BLOCK, a, a, SAAKM_BLOCKED),
		  "context: block() may block its own task");
	TAP_CHECK(!saakm_callback_may(SAAKM_EV_BLOCK, a, b, SAAKM_BLOCKED),
		  "context: block() may not block another task");
	TAP_CHECK(!saakm_callback_may(SAAKM_EV_TICK, a, a, SAAKM_BLOCKED),
		  "context: tick() may not block");
	TAP_CHECK(saakm_callback_may(SAAKM_EV_TERMINATE, a, a, SAAKM_TERMINATED) &&
		  !saakm_callback_may(SAAKM_EV_BLOCK, a, a, SAAKM_TERMINATED),
		  "context: only terminate() terminates");
	TAP_CHECK(saakm_callback_may(SAAKM_EV_SCHEDULE, NULL, a, SAAKM_RUNNING) &&
		  saakm_callback_may(SAAKM_EV_SCHEDULE, a, a, SAAKM_RUNNING) &&
		  !saakm_callback_may(SAAKM_EV_SCHEDULE, a, b, SAAKM_RUNNING),
		  "context: schedule() makes one task RUNNING, not a second");
	TAP_CHECK(saakm_callback_may(SAAKM_EV_BALANCE_PICK, NULL, a, SAAKM_MIGRATING) &&
		  !saakm_callback_may(SAAKM_EV_SCHEDULE, NULL, a, SAAKM_MIGRATING),
		  "context: only balance_pick() starts a migration");
	TAP_CHECK(saakm_callback_may(SAAKM_NR_EVENTS, NULL, a, SAAKM_READY),
		  "context: READY from anywhere (a timer, say)");
}

static void t_pull_verdict(void)
{
	TAP_CHECK(saakm_pull_verdict(SAAKM_MIGRATING, true, true, false, true) == SAAKM_PULL_MOVE,
		  "pull: a MIGRATING task on the source moves");
	TAP_CHECK(saakm_pull_verdict(SAAKM_MIGRATING, true, true, true, false) ==
		  SAAKM_PULL_GIVE_BACK,
		  "pull: one still running on the source is given back, not an error");
	TAP_CHECK(saakm_pull_verdict(SAAKM_READY, true, true, false, true) == SAAKM_PULL_BAD,
		  "pull: a task not made MIGRATING is a bad pick");
	TAP_CHECK(saakm_pull_verdict(SAAKM_MIGRATING, false, true, false, true) == SAAKM_PULL_BAD,
		  "pull: a task of another CPU is a bad pick");
	TAP_CHECK(saakm_pull_verdict(SAAKM_MIGRATING, true, true, false, false) == SAAKM_PULL_BAD,
		  "pull: a task that may not go to the destination is a bad pick");
}

static void t_names(void)
{
	TAP_CHECK(!strcmp(saakm_state_name(SAAKM_READY_TICK), "READY_TICK") &&
		  !strcmp(saakm_state_name(SAAKM_NR_STATES), "?"), "names: states");
	TAP_CHECK(!strcmp(saakm_event_name(SAAKM_EV_BALANCE_PICK), "balance_pick") &&
		  !strcmp(saakm_event_name(SAAKM_NR_EVENTS), "?"), "names: events");
	TAP_CHECK(!strcmp(saakm_eject_kind_name(SAAKM_EJECT_WRONG_CPU), "wrong-cpu") &&
		  !strcmp(saakm_eject_kind_name(SAAKM_NR_EJECT_KINDS), "?"),
		  "names: ejection kinds, as /proc/saakm/errors shows them");
}

int main(void)
{
	printf("# the rules that judge a policy (kernel/src/kernel/sched/saakm/saakm_check.c)\n");
	usim_setup(2, NULL);
	t_ops_valid();
	t_transitions();
	t_callback_may();
	t_pull_verdict();
	t_names();
	return tap_done();
}
