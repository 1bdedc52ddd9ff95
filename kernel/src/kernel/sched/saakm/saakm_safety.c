// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM safety net: how a faulty policy is found, and how the class runs
 * its tasks once it is ejected (saakm_eject.c reports and drains).
 *
 * Detection. Every fault ends in saakm_eject(), first error wins:
 * - the watchdog (a work item, every quarter timeout): a READY task that
 *   waited longer than the stall timeout while its CPU was free for it, or
 *   a runnable task in no runqueue, on no CPU and not parked ("limbo").
 *   Waits are timed by saakm_wait_clock(), which stops while the CPU runs a
 *   higher class or an earlier policy: a busy CPU is not the policy's fault;
 * - the tick: a CPU with READY tasks and no pick for a whole timeout while
 *   it was free for them; it also keeps saakm_wait_clock() up to date;
 * - the state machine (saakm_change_state() in saakm_state.c) and the
 *   checks on what callbacks return or leave (saakm.c);
 * - saakm_policy_error() from the policy itself, and SysRq-K.
 *
 * Bypass. An ejected policy is never called again, except free_metadata,
 * core_exit and exit, so that it can release what it holds. saakm_call()
 * skips it, and each hook's own check of the callback's result repairs the
 * task the policy did not handle; the class then runs the tasks itself,
 * round robin on the per-CPU parked lists, until the drain is over:
 *
 *   enqueue_task     new_place/unblock_place skipped: parked at the tail
 *   dequeue_task     block skipped: forced BLOCKED, unparked
 *   select_task_rq   unblock_prepare skipped: the previous CPU
 *   pick_task        schedule skipped: saakm_bypass_pick() parks READY tasks
 *   task_tick        tick skipped: parked tasks rotate every 20 ms
 *   yield_task       yield skipped: the task keeps its slice
 *   task_dead        terminate skipped: forced TERMINATED; free_metadata runs
 *   switched_from    block skipped: forced BLOCKED
 *   balancing        newly_idle/balancing_select not called (not ENABLED)
 *   prio_changed     setparam_attr skipped
 */
#include <linux/sysrq.h>
#include "saakm_eject.h"
#include "saakm_record.h"
#include "saakm_safety.h"
#include "saakm_state.h"

unsigned int saakm_watchdog_timeout_ms = 5000;
static void saakm_watchdog_workfn(struct work_struct *work);
static DECLARE_DELAYED_WORK(saakm_watchdog_work, saakm_watchdog_workfn);

/**
 * saakm_timeout - stall timeout of a policy, in jiffies
 * @pol: the policy
 *
 * Return: the system timeout, or the policy's own if it is lower.
 */
static unsigned long saakm_timeout(struct saakm_policy *pol)
{
	unsigned int ms = READ_ONCE(saakm_watchdog_timeout_ms);

	if (pol->ops.timeout_ms && pol->ops.timeout_ms < ms)
		ms = pol->ops.timeout_ms;
	return msecs_to_jiffies(ms);
}

/*
 * Could @pol run a task on @cpu right now (the tick's view, @cpu's rq
 * locked)? A READY task waiting while its CPU runs a higher class, or an
 * earlier policy, is not stalled by its policy. True if @cpu is idle or
 * runs a task of @pol or a later policy.
 */
static bool saakm_cpu_free_for(struct saakm_policy *pol, int cpu)
{
	struct task_struct *curr = READ_ONCE(cpu_rq(cpu)->curr);
	struct saakm_policy *cp;

	if (is_idle_task(curr))
		return true;
	if (READ_ONCE(curr->sched_class) != &saakm_sched_class)
		return false;
	cp = READ_ONCE(curr->saakm.policy);
	return !cp || cp->slot >= pol->slot;
}

/* The longest tick gap charged to one class: an idle CPU's tick stops. */
#define SAAKM_MAX_TICK_GAP	(HZ / 10)

/**
 * saakm_check_cpu_stall - the tick's stall check for @pol on @cpu
 * @pol: an enabled policy
 * @cpu: the ticking CPU, its rq locked
 *
 * First, charge the time since the last tick to the class running now: if
 * the CPU is not free for @pol, saakm_wait_clock() does not advance for it.
 * Then a policy with READY tasks on @cpu that picked none for longer than
 * its stall timeout, while the CPU was free for it, is ejected: the
 * watchdog's backstop, which works even if the watchdog cannot run.
 */
void saakm_check_cpu_stall(struct saakm_policy *pol, int cpu)
{
	struct saakm_policy_pcpu *pc = per_cpu_ptr(pol->pcpu, cpu);
	unsigned long gap = min(jiffies - pc->busy_seen, (unsigned long)SAAKM_MAX_TICK_GAP);
	bool free = saakm_cpu_free_for(pol, cpu);

	pc->busy_seen = jiffies;
	if (!free)
		WRITE_ONCE(pc->busy, pc->busy + gap);
	if (!pc->nr_ready)
		return;
	if (!free)
		pc->last_pick = jiffies;	/* waiting is not its fault */
	else if (time_after(jiffies, pc->last_pick + saakm_timeout(pol)))
		saakm_eject(pol, SAAKM_EJECT_STALL, SAAKM_ERR_NO_PICK,
			    cpu, jiffies_to_msecs(jiffies - pc->last_pick), pc->nr_ready);
}

/* Tasks looked at per lock hold, by the watchdog and by the bypass pick. */
#define SAAKM_SCAN_BATCH	32

/*
 * Runnable, but neither in a policy runqueue, nor running, nor parked by the
 * class: the policy dropped it, and nothing will ever run it. rq locked.
 */
static bool saakm_in_limbo(struct task_struct *p)
{
	struct rq *rq = task_rq(p);

	return (p->saakm.flags & SAAKM_TF_QUEUED) && !task_on_cpu(rq, p) &&
	       !task_current(rq, p) && !saakm_is_ready(p->saakm.state) &&
	       list_empty(&p->saakm.core_node);
}

/*
 * How long @p has waited in its state, on its CPU's wait clock, in jiffies.
 * Read without the rq lock, the CPU and the stamp may not match: a value
 * below zero is then possible, and means "not long".
 */
static long saakm_waited(struct saakm_policy *pol, struct task_struct *p)
{
	return (long)(saakm_wait_clock(pol, task_cpu(p)) - READ_ONCE(p->saakm.ready_at));
}

/*
 * The watchdog's first look at one task, without its rq lock, so it may be
 * wrong: a READY task that waited longer than @timeout on a CPU free for it,
 * or a task that may be in limbo. saakm_confirm_stall() decides. Whether
 * the CPU is free at this instant does not matter: the wait clock already
 * left out the time it was not, and the CPU the watchdog runs on is busy
 * with the watchdog (checking that let a task starved there go unseen).
 */
static bool saakm_suspect(struct saakm_policy *pol, struct task_struct *p,
			  unsigned long timeout)
{
	if (saakm_waited(pol, p) <= (long)timeout)
		return false;
	if (saakm_is_ready(READ_ONCE(p->saakm.state)))
		return true;
	/* Running, or parked by the class: not lost. */
	return (READ_ONCE(p->saakm.flags) & SAAKM_TF_QUEUED) && !task_curr(p) &&
	       list_empty_careful(&p->saakm.core_node);
}

/*
 * Check a suspect under its rq lock, where its state, CPU and wait are
 * stable, and eject the policy if it is stalled. A task in limbo is also
 * parked, so that the class runs it.
 */
static void saakm_confirm_stall(struct saakm_policy *pol, struct task_struct *p,
				unsigned long timeout)
{
	unsigned int ms, cpu;
	struct rq_flags rf;
	struct rq *rq;

	rq = task_rq_lock(p, &rf);
	cpu = task_cpu(p);
	ms = jiffies_to_msecs(saakm_waited(pol, p));
	if (p->saakm.policy != pol || saakm_waited(pol, p) <= (long)timeout) {
		/* moved on meanwhile */
	} else if (saakm_is_ready(p->saakm.state)) {
		saakm_eject(pol, SAAKM_EJECT_STALL, "task %d (%s) ready for %u ms on cpu %d without running",
			    p->pid, p->comm, ms, cpu);
	} else if (saakm_in_limbo(p)) {
		saakm_eject(pol, SAAKM_EJECT_STALL, "task %d (%s) runnable for %u ms on cpu %d in state %s, in no runqueue",
			    p->pid, p->comm, ms, cpu, saakm_state_name(p->saakm.state));
		saakm_force_state(p, SAAKM_RUNNING);
		saakm_park(p, cpu, true);
		resched_curr(rq);
	}
	task_rq_unlock(rq, p, &rf);
}

/*
 * The watchdog, from a work item every quarter timeout: look at every task
 * of the policy, a batch per lock hold (interrupts are off meanwhile), and
 * move each task looked at to the tail so the list is walked in rounds.
 * Catches a policy that starves one task while picking others, or drops a
 * runnable task; the tick catches a policy that picks nothing.
 */
static void saakm_watchdog_check(struct saakm_policy *pol)
{
	unsigned long timeout = saakm_timeout(pol), flags;
	int left = atomic_read(&pol->nr_tasks);

	while (left > 0 && READ_ONCE(pol->state) == SAAKM_POLICY_ENABLED) {
		struct task_struct *suspect = NULL;
		int n;

		raw_spin_lock_irqsave(&pol->lock, flags);
		for (n = 0; n < SAAKM_SCAN_BATCH && left > 0 && !suspect; n++, left--) {
			struct task_struct *p;

			p = list_first_entry_or_null(&pol->tasks, struct task_struct,
						     saakm.policy_node);
			if (!p) {
				/* the tasks left meanwhile: do not wait for one to join */
				left = 0;
				break;
			}
			list_move_tail(&p->saakm.policy_node, &pol->tasks);
			if (saakm_suspect(pol, p, timeout)) {
				get_task_struct(p);
				suspect = p;
			}
		}
		raw_spin_unlock_irqrestore(&pol->lock, flags);
		if (suspect) {
			saakm_confirm_stall(pol, suspect, timeout);
			put_task_struct(suspect);
		}
		cond_resched();
	}
}

/*
 * Runs in process context without RCU: the watchdog sleeps between batches.
 * saakm_mutex keeps the policy list stable.
 */
static void saakm_watchdog_workfn(struct work_struct *work)
{
	struct saakm_policy *pol;
	unsigned long period;

	mutex_lock(&saakm_mutex);
	list_for_each_entry(pol, &saakm_policies, list)
		if (READ_ONCE(pol->state) == SAAKM_POLICY_ENABLED)
			saakm_watchdog_check(pol);
	mutex_unlock(&saakm_mutex);

	period = max(msecs_to_jiffies(READ_ONCE(saakm_watchdog_timeout_ms)) / 4, 1UL);
	if (saakm_enabled())
		queue_delayed_work(system_unbound_wq, &saakm_watchdog_work, period);
}

/* Start the watchdog now: a policy was registered. */
void saakm_watchdog_kick(void)
{
	mod_delayed_work(system_unbound_wq, &saakm_watchdog_work, 0);
}

/* Set up @pol's ejection machinery and wait clocks, at registration. */
void saakm_safety_init(struct saakm_policy *pol)
{
	int cpu;

	/* The first tick charges only the time since now. */
	for_each_possible_cpu(cpu)
		per_cpu_ptr(pol->pcpu, cpu)->busy_seen = jiffies;
	saakm_eject_init(pol);
}

/*
 * The class runs the tasks of an ejected policy itself until they are moved
 * away. When @cpu has none parked, look at the policy's tasks a batch at a
 * time (rotating them to the tail) and park every READY one queued on @cpu:
 * later picks then take the parked list in O(1). Returns the head of the
 * parked list, left parked (see pick_task_saakm()). rq(@cpu) locked.
 */
struct task_struct *saakm_bypass_pick(struct saakm_policy *pol, int cpu)
{
	struct list_head *parked = &per_cpu_ptr(pol->pcpu, cpu)->preempted;
	int left = atomic_read(&pol->nr_tasks), n = 0;
	struct task_struct *p;

	raw_spin_lock(&pol->lock);
	while (left-- > 0 && (list_empty(parked) || n < SAAKM_SCAN_BATCH)) {
		p = list_first_entry_or_null(&pol->tasks, struct task_struct,
					     saakm.policy_node);
		if (!p)
			break;
		list_move_tail(&p->saakm.policy_node, &pol->tasks);
		n++;
		if (saakm_is_ready(p->saakm.state) && p->saakm.cpu == cpu &&
		    task_cpu(p) == cpu && (p->saakm.flags & SAAKM_TF_QUEUED)) {
			saakm_force_state(p, SAAKM_RUNNING);
			saakm_park(p, cpu, true);
		}
	}
	raw_spin_unlock(&pol->lock);
	return list_first_entry_or_null(parked, struct task_struct, saakm.core_node);
}

/* SysRq-K: eject every policy, like SysRq-S for sched_ext. */
static void sysrq_handle_saakm_eject(u8 key)
{
	struct saakm_policy *pol;

	rcu_read_lock();
	for_each_saakm_policy(pol)
		saakm_eject(pol, SAAKM_EJECT_SYSRQ, "ejected by SysRq-K");
	rcu_read_unlock();
}

static const struct sysrq_key_op sysrq_saakm_eject_op = {
	.handler	= sysrq_handle_saakm_eject,
	.help_msg	= "eject-saakm-policies(K)",
	.action_msg	= "Ejecting all SaaKM policies",
	.enable_mask	= SYSRQ_ENABLE_RTNICE,
};

static int __init saakm_sysrq_init(void)
{
	return register_sysrq_key('K', &sysrq_saakm_eject_op);
}
late_initcall(saakm_sysrq_init);
