// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_faulty: a deliberately broken policy, to prove the safety net. It
 * schedules like saakm_fifo until the fault chosen with the "fault"
 * parameter is armed (write 1 to /sys/module/saakm_faulty/parameters/armed);
 * then it misbehaves in one way:
 *
 *   never_pick     schedule() returns nothing: tasks stall
 *   starve         schedule() skips the task whose pid is "victim"
 *   other_cpu      schedule() returns a task queued on another CPU
 *   double_insert  unblock_place() inserts the task twice
 *   bad_transition block() moves the task to RUNNING instead of BLOCKED
 *   wrong_cpu      unblock_prepare() returns a CPU that does not exist
 *   outside_cpu    unblock_prepare() returns, for a task that may not run
 *                  everywhere, the highest online CPU outside its affinity
 *   error          calls saakm_policy_error() from the callback "in"
 *   sleep          calls a function that may sleep (mutex_lock()) in the
 *                  callback "in": the debug kernel reports it; the mutex
 *                  is always free, so it never really sleeps or deadlocks
 *   drop_in_schedule  schedule() picks as usual, and also moves the next
 *                  READY task of the CPU's runqueue to BLOCKED: a runnable
 *                  task the policy forgets
 *   block_in_tick  tick() moves the running task to BLOCKED: it is dropped
 *                  when it leaves the CPU
 *   terminate_in   moves a task to TERMINATED from the callback "in": tick
 *                  (the running task), schedule (the task queued after the
 *                  one picked) or block (the task blocking)
 *   two_running    schedule() picks as usual, and also moves the next READY
 *                  task to RUNNING: a runnable task on no CPU
 *
 * Each of these must end with the policy ejected, its tasks back under
 * SCHED_NORMAL, and the reason in /proc/saakm/errors. The last four move
 * only tasks whose state allows it (by the transition table), so that no
 * refused transition gives them away: the class has to notice the lost task
 * itself, or refuse the move. Test use only.
 */
#include <linux/saakm.h>

static char *fault = "none";
module_param(fault, charp, 0444);
static char *in = "tick";
module_param(in, charp, 0444);
static bool armed;
module_param(armed, bool, 0644);
static int victim;
module_param(victim, int, 0644);
static unsigned int timeout_ms;
module_param(timeout_ms, uint, 0444);

static DEFINE_PER_CPU(struct saakm_rq, faulty_rq);
static struct saakm_policy *faulty;

static struct saakm_rq *rq_of(int cpu)
{
	return per_cpu_ptr(&faulty_rq, cpu);
}

static bool faulting(const char *kind)
{
	return READ_ONCE(armed) && !strcmp(fault, kind);
}

/* The "terminate_in" fault, in callback @cb. */
static bool terminating_in(const char *cb)
{
	return faulting("terminate_in") && !strcmp(in, cb);
}

/* The "error" and "sleep" faults, in callback @cb. */
static void maybe_error(struct saakm_policy *pol, const char *cb)
{
	if (faulting("error") && !strcmp(in, cb))
		saakm_policy_error(pol, "injected error in %s", cb);
	if (faulting("sleep") && !strcmp(in, cb)) {
		/*
		 * A bug: callbacks run in atomic context. mutex_lock() calls
		 * might_sleep(), which CONFIG_DEBUG_ATOMIC_SLEEP reports. The
		 * mutex is private and taken by one caller at a time, so the
		 * lock always succeeds at once and nothing is scheduled.
		 */
		static DEFINE_MUTEX(sleep_lock);
		static atomic_t sleep_busy = ATOMIC_INIT(0);

		if (!atomic_cmpxchg(&sleep_busy, 0, 1)) {
			mutex_lock(&sleep_lock);
			mutex_unlock(&sleep_lock);
			atomic_set_release(&sleep_busy, 0);
		}
	}
}

/* Placement as in saakm_fifo: the (pid % allowed)-th allowed CPU. */
static int pick_cpu(struct task_struct *p)
{
	return cpumask_nth(p->pid % cpumask_weight(p->cpus_ptr), p->cpus_ptr);
}

static int faulty_new_prepare(struct saakm_policy *pol, struct task_struct *p)
{
	maybe_error(pol, "new_prepare");
	return pick_cpu(p);
}

/* The highest online CPU that @p may not use, or -1. */
static int outside_cpu(struct task_struct *p)
{
	int cpu, found = -1;

	for_each_online_cpu(cpu)
		if (!cpumask_test_cpu(cpu, p->cpus_ptr))
			found = cpu;
	return found;
}

static int faulty_unblock_prepare(struct saakm_policy *pol, struct task_struct *p)
{
	maybe_error(pol, "unblock_prepare");
	if (faulting("wrong_cpu"))
		return nr_cpu_ids;
	if (faulting("outside_cpu") && outside_cpu(p) >= 0)
		return outside_cpu(p);
	return pick_cpu(p);
}

static void faulty_new_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	maybe_error(pol, "new_place");
	saakm_change_state(p, SAAKM_READY, cpu, rq_of(cpu));
}

static void faulty_unblock_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	maybe_error(pol, "unblock_place");
	saakm_change_state(p, SAAKM_READY, cpu, rq_of(cpu));
	if (faulting("double_insert"))
		saakm_change_state(p, SAAKM_READY, cpu, rq_of(cpu));
}

static void faulty_block(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	enum saakm_task_state to = SAAKM_BLOCKED;

	maybe_error(pol, "block");
	if (faulting("bad_transition"))
		to = SAAKM_RUNNING;
	else if (terminating_in("block"))
		to = SAAKM_TERMINATED;
	saakm_change_state(p, to, -1, NULL);
}

static void faulty_yield(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	maybe_error(pol, "yield");
	saakm_change_state(p, SAAKM_READY, cpu, rq_of(cpu));
}

static void faulty_tick(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	maybe_error(pol, "tick");
	if (saakm_task_state(p) == SAAKM_RUNNING) {
		if (faulting("block_in_tick")) {
			saakm_change_state(p, SAAKM_BLOCKED, -1, NULL);
			return;
		}
		if (terminating_in("tick")) {
			saakm_change_state(p, SAAKM_TERMINATED, -1, NULL);
			return;
		}
	}
	if (saakm_rq_len(rq_of(cpu)) && saakm_running_ns(p) >= 10 * NSEC_PER_MSEC)
		saakm_change_state(p, SAAKM_READY_TICK, cpu, rq_of(cpu));
}

static void faulty_terminate(struct saakm_policy *pol, struct task_struct *p)
{
	saakm_change_state(p, SAAKM_TERMINATED, -1, NULL);
}

static struct task_struct *faulty_schedule(struct saakm_policy *pol, int cpu)
{
	struct task_struct *p, *next = NULL;
	int other;

	maybe_error(pol, "schedule");
	if (faulting("never_pick"))
		return NULL;
	if (faulting("other_cpu")) {
		for_each_online_cpu(other) {
			p = other != cpu ? saakm_rq_first(rq_of(other)) : NULL;
			if (p)
				return p;	/* not ours to run: the class refuses it */
		}
	}
	saakm_rq_for_each(p, rq_of(cpu))
		if (!faulting("starve") || p->pid != READ_ONCE(victim))
			break;
	if (!p)
		return NULL;
	if (faulting("drop_in_schedule") || terminating_in("schedule") ||
	    faulting("two_running"))
		next = saakm_rq_next(rq_of(cpu), p);
	saakm_change_state(p, SAAKM_RUNNING, cpu, NULL);
	/* READY: may go to BLOCKED, TERMINATED or RUNNING by the table */
	if (next && faulting("two_running"))
		saakm_change_state(next, SAAKM_RUNNING, cpu, NULL);
	else if (next)
		saakm_change_state(next, faulting("drop_in_schedule") ?
				   SAAKM_BLOCKED : SAAKM_TERMINATED, -1, NULL);
	return p;
}

static struct saakm_ops faulty_ops = {
	.name			= "faulty",
	.new_prepare		= faulty_new_prepare,
	.new_place		= faulty_new_place,
	.unblock_prepare	= faulty_unblock_prepare,
	.unblock_place		= faulty_unblock_place,
	.block			= faulty_block,
	.yield			= faulty_yield,
	.tick			= faulty_tick,
	.terminate		= faulty_terminate,
	.schedule		= faulty_schedule,
};

static int __init faulty_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		saakm_rq_init(rq_of(cpu), SAAKM_RQ_FIFO, NULL, cpu);
	faulty_ops.timeout_ms = timeout_ms;
	faulty = saakm_register_policy(&faulty_ops, NULL);
	return PTR_ERR_OR_ZERO(faulty);
}

static void __exit faulty_exit(void)
{
	saakm_unregister_policy(faulty);
}
module_init(faulty_init);
module_exit(faulty_exit);
MODULE_DESCRIPTION("SaaKM test policy with injectable faults");
MODULE_LICENSE("GPL");
