// SPDX-License-Identifier: GPL-2.0
/*
 * The task state machine: where a task of a policy stands (NOT_QUEUED,
 * READY, RUNNING, BLOCKED, ...), in which runqueue, and on the class-owned
 * per-CPU lists of parked tasks. Policies move their tasks with
 * saakm_change_state(), which checks each change against the rules of
 * saakm_check.c and ejects a policy that breaks them; the class moves them
 * on its own authority with saakm_force_state().
 */
#include "saakm_eject.h"
#include "saakm_record.h"
#include "saakm_state.h"

DEFINE_STATIC_KEY_TRUE(saakm_check_key);

DEFINE_STATIC_KEY_TRUE(saakm_log_transitions_key);

/*
 * What a policy may do is judged in saakm_check.c, shared with the host's
 * simulator. The class itself also moves tasks to RUNNING (picked by core
 * scheduling without the policy, or repaired after an error), READY_TICK ->
 * READY (left the CPU) and * -> BLOCKED (PI boost), with saakm_force_state().
 */

/* Leave the current state: off the runqueue, out of the READY count. */
static void leave_state(struct task_struct *p)
{
	struct sched_saakm_entity *se = &p->saakm;

	if (se->queue)
		saakm_rq_remove(p);
	if (saakm_is_ready(se->state)) {
		per_cpu_ptr(se->policy->pcpu, se->cpu)->nr_ready--;
		saakm_note_work(se->policy, se->cpu);
	}
}

/**
 * saakm_force_state - move a task to a state on the class's own authority
 * @p: the task, its rq locked
 * @state: the new state; never READY (the class does not queue tasks)
 *
 * Used for transitions the class makes itself and to repair the state after
 * a policy error. Not validated.
 */
void saakm_force_state(struct task_struct *p, enum saakm_task_state state)
{
	struct saakm_policy *pol = p->saakm.policy;

	/* READY_TICK -> READY only relabels a task that stays queued. */
	if (!(saakm_is_ready(p->saakm.state) && saakm_is_ready(state)))
		leave_state(p);
	if (state == SAAKM_RUNNING && p->saakm.state != SAAKM_RUNNING)
		p->saakm.run_start = p->se.sum_exec_runtime;
	if (state != p->saakm.state && pol) {
		p->saakm.ready_at = saakm_wait_clock(pol, task_cpu(p));
		saakm_rec(pol, SAAKM_REC_FORCE, 0, task_cpu(p), p, state, -1, p->saakm.state);
	}
	p->saakm.state = state;
}

/*
 * Is the callback running on this CPU allowed to move @p to @to? The first
 * task schedule() makes RUNNING is recorded: a second one is refused.
 */
static bool saakm_in_context(struct task_struct *p, enum saakm_task_state to)
{
	enum saakm_event ev = __this_cpu_read(saakm_ctx.ev);
	struct task_struct *for_task = __this_cpu_read(saakm_ctx.p);

	if (!saakm_callback_may(ev, for_task, p, to))
		return false;
	if (to == SAAKM_RUNNING)
		__this_cpu_write(saakm_ctx.p, p);
	return true;
}

static void report_bad_transition(struct task_struct *p, enum saakm_task_state to,
				  unsigned long ip, const char *why)
{
	struct saakm_policy *pol = p->saakm.policy;
	int cpu = task_cpu(p);	/* the argument is -1 for most target states */

	atomic_inc(&pol->nr_bad_transitions);
	if (static_branch_likely(&saakm_log_transitions_key))
		saakm_printk_ratelimited(KERN_ERR "saakm: policy %s: task %d (%s) on cpu %d: invalid transition %s -> %s%s at %pS\n",
				   pol->ops.name, p->pid, p->comm, cpu,
				   saakm_state_name(p->saakm.state),
				   saakm_state_name(to), why, (void *)ip);
	saakm_eject(pol, SAAKM_EJECT_TRANSITION, "task %d on cpu %d: %s -> %s%s at %pS",
		    p->pid, cpu, saakm_state_name(p->saakm.state),
		    saakm_state_name(to), why, (void *)ip);
}

/**
 * saakm_change_state - move a task to a new state, and between runqueues
 * @p: the task
 * @state: the new state
 * @cpu: for %SAAKM_READY and %SAAKM_READY_TICK, the CPU whose runqueue @rq
 *	is, which must be the task's CPU; for %SAAKM_RUNNING, the CPU it runs
 *	on; ignored otherwise (pass -1)
 * @rq: for %SAAKM_READY and %SAAKM_READY_TICK, the runqueue to insert @p in;
 *	NULL otherwise
 *
 * This is the only way a policy changes a task's state. Leaving READY takes
 * the task off its runqueue; entering READY inserts it, so a task can never
 * be queued twice. With checking on (the default), a transition not in the
 * state machine is refused and reported with the policy, task, states and
 * call site; so is SAAKM_BLOCKED outside block() for @p, SAAKM_TERMINATED
 * outside terminate() for @p, SAAKM_MIGRATING outside balance_pick(), and
 * SAAKM_RUNNING outside schedule() or for a second task in one schedule().
 * An insertion for another CPU is a policy error.
 *
 * Context: the rq lock of the task's CPU is held (it is, in every callback
 * that may change this task's state).
 */
void saakm_change_state(struct task_struct *p, enum saakm_task_state state,
			int cpu, struct saakm_rq *rq)
{
	struct sched_saakm_entity *se = &p->saakm;

	if (WARN_ON_ONCE(!se->policy || state >= SAAKM_NR_STATES))
		return;
	lockdep_assert_rq_held(task_rq(p));

	if (static_branch_likely(&saakm_check_key)) {
		if (!saakm_transition_ok(se->state, state)) {
			report_bad_transition(p, state, _RET_IP_, "");
			return;
		}
		if (!saakm_in_context(p, state)) {
			report_bad_transition(p, state, _RET_IP_,
					      " outside its callback");
			return;
		}
	}
	if (saakm_is_ready(state) &&
	    (!rq || cpu != task_cpu(p) || (rq->cpu >= 0 && rq->cpu != cpu))) {
		saakm_eject(se->policy, SAAKM_EJECT_WRONG_CPU,
			    "task %d queued for cpu %d (runqueue of cpu %d) but enqueued on cpu %d",
			    p->pid, cpu, rq ? rq->cpu : -1, task_cpu(p));
		return;
	}

	trace_saakm_state(se->policy->ops.name, p->pid, cpu, se->state, state);
	saakm_rec(se->policy, SAAKM_REC_STATE, 0, cpu, p, state, rq ? rq->cpu : -1, se->state);
	leave_state(p);
	se->state = state;
	se->ready_at = saakm_wait_clock(se->policy, task_cpu(p));
	if (saakm_is_ready(state)) {
		struct saakm_policy_pcpu *pc = per_cpu_ptr(se->policy->pcpu, cpu);

		saakm_rq_insert(rq, p);
		/* The stall clock of a CPU starts with its first READY task. */
		if (!pc->nr_ready++)
			pc->last_pick = jiffies;
		saakm_note_work(se->policy, cpu);
		se->cpu = cpu;
	} else if (state == SAAKM_RUNNING) {
		se->cpu = cpu;
		se->run_start = p->se.sum_exec_runtime;
	}
}
EXPORT_SYMBOL_GPL(saakm_change_state);

/*
 * Park @p, RUNNING, on the class-owned list of @cpu: at the head, or the
 * tail. A parked task runs before the policy is asked for another one.
 */
void saakm_park(struct task_struct *p, int cpu, bool tail)
{
	struct list_head *head = &per_cpu_ptr(p->saakm.policy->pcpu, cpu)->preempted;

	if (tail)
		list_move_tail(&p->saakm.core_node, head);
	else
		list_move(&p->saakm.core_node, head);
	saakm_note_work(p->saakm.policy, cpu);
}

/**
 * saakm_check_placed - after new_place or unblock_place, @p must be READY
 * @p: the task the policy placed; rq(@cpu) locked
 * @cpu: the CPU it was placed on
 * @ev: SAAKM_EV_NEW_PLACE or SAAKM_EV_UNBLOCK_PLACE
 *
 * If the policy left it in another state, park it on @cpu's class-owned
 * list, so that it still runs, and eject the policy.
 */
void saakm_check_placed(struct task_struct *p, int cpu, enum saakm_event ev)
{
	if (likely(p->saakm.state == saakm_left_state(ev)))
		return;
	saakm_eject(p->saakm.policy, SAAKM_EJECT_CALLBACK, SAAKM_ERR_LEFT_STATE,
		    saakm_event_name(ev), p->pid, saakm_state_name(p->saakm.state));
	saakm_force_state(p, SAAKM_RUNNING);
	saakm_park(p, cpu, true);
}

/* Take @p off the class-owned list of @cpu if it is parked there. */
void saakm_unpark(struct task_struct *p, int cpu)
{
	if (list_empty(&p->saakm.core_node))
		return;
	list_del_init(&p->saakm.core_node);
	saakm_note_work(p->saakm.policy, cpu);
}
