// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM class core: the sched_class that runs scheduling policies written as
 * kernel modules.
 *
 * The scheduler core speaks in sched_class hooks (enqueue_task, pick_task,
 * put_prev_task, ...) that are reached from many call paths with subtle
 * preconditions. Policies speak in events (new task, wakeup, block, pick the
 * next task for this CPU, ...; see <linux/saakm.h>). This file translates the
 * former into the latter, deciding which event happened from the core's
 * ENQUEUE_/DEQUEUE_ flags, never from p->__state.
 *
 * The class sits between ext and idle in the linker-ordered class list: a
 * SaaKM task runs only when no stop, deadline, RT, fair or ext task is
 * runnable on its CPU.
 *
 * Four rules keep the policy's view simple:
 *
 * - A RUNNING task is not in any policy runqueue. It keeps its CPU until it
 *   blocks, yields, or the policy preempts it from tick(). When a higher
 *   class (or an earlier policy) takes the CPU, the task is parked on the
 *   class-owned per-CPU "preempted" list and resumes first when the class
 *   gets the CPU back; the policy still sees it RUNNING. sched_ext does the
 *   same by putting a preempted task at the head of its local DSQ.
 *
 * - A save/restore pair (DEQUEUE_SAVE ... ENQUEUE_RESTORE: nice, policy or
 *   affinity changes) always happens on one runqueue under its lock, so the
 *   policy is not told: the task stays where it was in the policy's queues.
 *
 * - Any other dequeue of a queued task that is not a sleep is the class
 *   moving the task (migration on affinity change, hotplug, exec): the
 *   policy sees block() on the old CPU and unblock_place() on the new one.
 *
 * - Every callback's result is checked, and a task a callback left in the
 *   wrong state is repaired (parked, or forced BLOCKED/TERMINATED) after
 *   the policy is ejected. An ejected policy is bypassed: saakm_call() stops
 *   calling it and those same repairs run its tasks (saakm_safety.c).
 *
 * Hooks and the events they raise (saakm_call() names the callback):
 *
 *   enqueue_task     new task: new_place; wakeup or class move: unblock_place
 *   dequeue_task     sleep, or class move: block (not for save/restore)
 *   select_task_rq   wakeup: unblock_prepare (fork: new_prepare ran already)
 *   pick_task        schedule, for policies with work here, in slot order
 *   put_prev_task    a RUNNING task that lost the CPU is parked, not told
 *   balance          newly_idle (policies with tasks), then balance_pick on both CPUs
 *   sched_tick       balancing_select (irq_work), then balance_pick
 *   task_tick        tick
 *   kick (irq_work)  preempt, or tick without one (saakm_kick_cpu())
 *   yield_task       yield
 *   task_dead        terminate, free_metadata (saakm_policy.c)
 *   fork             new_prepare, even for a pinned child (saakm_policy.c)
 *   sched_setattr    checkparam_attr; leaving: terminate, free_metadata;
 *                    joining: new_prepare; then setparam_attr (saakm_policy.c)
 *   switched_from    block (PI boost); a real policy change: terminate
 *   prio_changed     setparam_attr (nice)
 *   idle enter/exit  enter_idle, exit_idle
 *   CPU up/down      core_entry, core_exit
 *
 * The class's files, in layers: a file calls only files of lower layers
 * (or of its own row, never in a loop), so each can be read, and tested,
 * knowing only what is below it. build.c includes them in this order.
 *
 *   6  saakm_stats.c    /proc/saakm and /sys/kernel/saakm: reads all below
 *   5  saakm.c          this file: the sched_class hooks, translated into
 *                       events; picking, kicks, balancing, hotplug
 *   4  saakm_policy.c   registration, joining and leaving, fork and
 *                       sched_setattr, core_entry/core_exit
 *      saakm_upgrade.c  live upgrade: a new version takes a policy over
 *   3  saakm_safety.c   the stall watchdog and tick check; running an
 *                       ejected policy's tasks (saakm_bypass_pick())
 *      saakm_server.c   the deadline server: a share under RT/DL load
 *      saakm_lib.c      services policies call (topology, clocks, ...)
 *   2  saakm_state.c    the state machine: saakm_change_state(), parking
 *   1  saakm_eject.c    reporting a fault, bypass, draining the tasks
 *      saakm_record.c   the recorder and the call log
 *   0  saakm_check.c    the rules that judge a policy (also in libusim)
 *      saakm_rq.c       the runqueues policies use (also in libusim)
 *
 * Upward needs are met by callbacks the higher layer installs: the deadline
 * server picks with the pick_task_saakm() it is given (saakm_server_init()),
 * and ejection's work item only drains, which needs nothing above it. The
 * objects every layer shares (a policy, the per-CPU state, the callback
 * context) are declared in saakm_base.h; how the class calls a policy, in
 * saakm_call.h.
 */
#include "saakm_call.h"
#include "saakm_eject.h"
#include "saakm_policy.h"
#include "saakm_safety.h"
#include "saakm_server.h"
#include "saakm_state.h"

DEFINE_PER_CPU(struct saakm_cpu, saakm_cpus);
DEFINE_PER_CPU(bool, saakm_idle);
DEFINE_PER_CPU(u64, saakm_idle_start);
unsigned int saakm_idle_epoch;
DEFINE_PER_CPU(unsigned int, saakm_idle_seen);
DEFINE_PER_CPU(struct saakm_ctx, saakm_ctx) = { .ev = SAAKM_NR_EVENTS };

static inline struct saakm_policy_pcpu *pol_pcpu(struct saakm_policy *pol, int cpu)
{
	return per_cpu_ptr(pol->pcpu, cpu);
}

/* Round-robin slice of tasks the class runs itself for an ejected policy. */
#define SAAKM_BYPASS_SLICE_NS	(20 * NSEC_PER_MSEC)

/* Is there anything for this class to run on @rq, for policies before @upto? */
static bool saakm_has_work(struct rq *rq, struct saakm_policy *upto)
{
	u64 work = per_cpu(saakm_work, cpu_of(rq));

	if (upto)
		work &= BIT_ULL(upto->slot) - 1;
	return work;
}

/* The running SaaKM task keeps its CPU unless it left RUNNING or was outranked. */
static bool curr_keeps_cpu(struct rq *rq, struct task_struct *curr)
{
	return curr->sched_class == &saakm_sched_class &&
	       (curr->saakm.flags & SAAKM_TF_QUEUED) &&
	       !(curr->saakm.flags & SAAKM_TF_ROTATE) &&
	       curr->saakm.state == SAAKM_RUNNING &&
	       !saakm_has_work(rq, curr->saakm.policy);
}

/*
 * CPU time used by a SaaKM task also counts against the class's deadline
 * server, whether the server picked the task or not: like the fair server,
 * it is deferred and only runs when the class got less than its runtime in
 * a period.
 */
static void update_curr_saakm(struct rq *rq)
{
	struct sched_dl_entity *server = &per_cpu(saakm_cpus, cpu_of(rq)).server;
	s64 delta = update_curr_common(rq);

	if (delta > 0 && dl_server_active(server))
		dl_server_update(server, delta);
}

static struct task_struct *pick_task_saakm(struct rq *rq);
static bool saakm_preempt_task(struct rq *rq, struct task_struct *p);
static void saakm_kick_due(struct rq *rq);

static struct task_struct *saakm_server_pick(struct sched_dl_entity *dl_se)
{
	return pick_task_saakm(dl_se->rq);
}

static void enqueue_task_saakm(struct rq *rq, struct task_struct *p, int flags)
{
	struct saakm_policy *pol = p->saakm.policy;
	int cpu = cpu_of(rq);

	if (WARN_ON_ONCE(!pol))
		return;

	add_nr_running(rq, 1);
	p->saakm.flags |= SAAKM_TF_QUEUED;
	per_cpu(saakm_cpus, cpu).nr_queued++;
	saakm_server_start(rq);

	/*
	 * A task that joins the policy while running, or comes back from a
	 * priority boost while running, is placed like any other: it stays
	 * READY, although still on the CPU, until set_next_task(), which
	 * follows, has the CPU rescheduled and the policy picks.
	 */
	__this_cpu_write(saakm_ctx.placing, rq);
	switch (p->saakm.state) {
	case SAAKM_NOT_QUEUED:
		saakm_call(pol, cpu, p, new_place, p, cpu);
		saakm_check_placed(p, cpu, SAAKM_EV_NEW_PLACE);
		break;
	case SAAKM_BLOCKED:
	case SAAKM_MIGRATING:
		/* Woken up, or moved here by the class or by balancing. */
		if (!(flags & ENQUEUE_WAKEUP))
			saakm_count(pol, SAAKM_EV_MIGRATED, cpu, p);
		else if (static_branch_likely(&saakm_wake_stats_key))
			p->saakm.woken_at = rq_clock(rq);
		saakm_call(pol, cpu, p, unblock_place, p, cpu);
		saakm_check_placed(p, cpu, SAAKM_EV_UNBLOCK_PLACE);
		break;
	default:
		/* ENQUEUE_RESTORE: still where the policy left it. */
		break;
	}
	__this_cpu_write(saakm_ctx.placing, NULL);
	if (!IS_ENABLED(CONFIG_SMP) || !(flags & ENQUEUE_WAKEUP))
		saakm_kick_due(rq);
}

#ifdef CONFIG_SMP
/*
 * A wakeup's kick is carried out here, after the core's wakeup_preempt():
 * a resched_curr() before it would have the core skip the next clock
 * update, and the time the waker runs on until it switches would be
 * charged to the task that runs next.
 */
static void task_woken_saakm(struct rq *rq, struct task_struct *p)
{
	saakm_kick_due(rq);
}
#endif

static bool dequeue_task_saakm(struct rq *rq, struct task_struct *p, int flags)
{
	struct saakm_policy *pol = p->saakm.policy;
	int cpu = cpu_of(rq);

	if (WARN_ON_ONCE(!pol || !(p->saakm.flags & SAAKM_TF_QUEUED)))
		return true;

	if (p == rq->curr)
		update_curr_saakm(rq);
	sub_nr_running(rq, 1);
	p->saakm.flags &= ~SAAKM_TF_QUEUED;
	per_cpu(saakm_cpus, cpu).nr_queued--;

	/* Same-rq save/restore: the policy keeps its view (see top of file). */
	if ((flags & DEQUEUE_SAVE) && !(flags & DEQUEUE_SLEEP))
		return true;

	switch (p->saakm.state) {
	case SAAKM_READY:
	case SAAKM_READY_TICK:
	case SAAKM_RUNNING:
		/* Going to sleep, or being moved off this CPU by the class. */
		saakm_unpark(p, cpu);
		saakm_call(pol, cpu, p, block, p, cpu);
		if (p->saakm.state != saakm_left_state(SAAKM_EV_BLOCK)) {
			saakm_eject(pol, SAAKM_EJECT_CALLBACK, SAAKM_ERR_LEFT_STATE,
				    saakm_event_name(SAAKM_EV_BLOCK), p->pid,
				    saakm_state_name(p->saakm.state));
			saakm_force_state(p, SAAKM_BLOCKED);
		}
		break;
	default:
		/* MIGRATING (balancing moves it): placed again on the new CPU. */
		break;
	}
	return true;
}

static void yield_task_saakm(struct rq *rq)
{
	struct task_struct *p = rq->curr;

	/* Preempted between the kick and this yield: it is leaving already. */
	if (p->saakm.state != SAAKM_RUNNING)
		return;

	saakm_call(p->saakm.policy, cpu_of(rq), p, yield, p, cpu_of(rq));
}

/* Policies in lower slots outrank later ones on a CPU. */
static void wakeup_preempt_saakm(struct rq *rq, struct task_struct *p, int flags)
{
	struct task_struct *curr = rq->curr;

	if (curr->saakm.policy && p->saakm.policy &&
	    p->saakm.policy->slot < curr->saakm.policy->slot)
		resched_curr(rq);
}

/* Ask the policy for a task; reject one it may not run here. */
static struct task_struct *policy_pick(struct saakm_policy *pol, int cpu)
{
	struct task_struct *p;

	p = saakm_call_ret(pol, cpu, NULL, NULL, schedule, cpu);
	if (!p)
		return NULL;
	pol_pcpu(pol, cpu)->last_pick = jiffies;
	pol_pcpu(pol, cpu)->picks++;
	if (unlikely(!saakm_pick_ok(p->saakm.policy == pol, task_cpu(p) == cpu,
				   p->saakm.flags & SAAKM_TF_QUEUED, p->saakm.state))) {
		saakm_eject(pol, SAAKM_EJECT_BAD_PICK, SAAKM_ERR_BAD_SCHEDULE,
			    cpu, p->pid, task_cpu(p),
			    saakm_state_name(p->saakm.state));
		return NULL;
	}
	return p;
}

/*
 * pick_task() must have no effect the core cannot undo: under core
 * scheduling it is called for sibling CPUs and its answer may be thrown
 * away. So a task the policy picks is parked at the head of the class-owned
 * list, where the next pick_task() finds it again, and set_next_task()
 * commits the pick by unparking it (as ext.c takes a task off its local DSQ
 * only in set_next_task).
 */
static struct task_struct *saakm_pick_parked(struct rq *rq, int cpu)
{
	u64 work;

	/* Only policies with work here, in slot order. */
	for (work = per_cpu(saakm_work, cpu); work; work &= work - 1) {
		struct saakm_policy *pol;
		struct saakm_policy_pcpu *pc;
		struct task_struct *p;

		pol = rcu_dereference_check(saakm_slots[__ffs64(work)],
					    rcu_read_lock_any_held());
		if (!pol)
			continue;
		pc = pol_pcpu(pol, cpu);

		/* A parked task (preempted, or picked already) resumes first. */
		p = list_first_entry_or_null(&pc->preempted, struct task_struct,
					     saakm.core_node);
		if (p)
			return p;
		if (!pc->nr_ready)
			continue;
		if (unlikely(saakm_bypassing(pol)))
			return saakm_bypass_pick(pol, cpu);
		p = policy_pick(pol, cpu);
		if (p) {
			saakm_park(p, cpu, false);
			return p;
		}
	}
	return NULL;
}

static struct task_struct *pick_task_saakm(struct rq *rq)
{
	struct task_struct *curr = rq->donor;
	int cpu = cpu_of(rq);
	struct task_struct *p;

	/* A wakeup kicked this CPU to preempt curr: see saakm_kick_due(). */
	if (unlikely(per_cpu(saakm_cpus, cpu).preempt_slots) &&
	    curr->sched_class == &saakm_sched_class) {
		update_curr_saakm(rq);
		saakm_preempt_task(rq, curr);
	}
	if (curr_keeps_cpu(rq, curr))
		return curr;
	p = saakm_pick_parked(rq, cpu);
	/*
	 * The core calls neither put_prev_task() nor set_next_task() when the
	 * pick is the task already running: it must not stay parked.
	 */
	if (p == curr)
		saakm_unpark(p, cpu);
	return p;
}

static void put_prev_task_saakm(struct rq *rq, struct task_struct *p,
				struct task_struct *next)
{
	bool rotate = p->saakm.flags & SAAKM_TF_ROTATE;

	update_curr_saakm(rq);
	p->saakm.flags &= ~SAAKM_TF_ROTATE;

	/* Blocked (block() already ran) or saved for a change: nothing to do. */
	if (!(p->saakm.flags & SAAKM_TF_QUEUED))
		return;

	switch (p->saakm.state) {
	case SAAKM_READY_TICK:
		/* Preempted from tick(): already back in a policy runqueue. */
		saakm_force_state(p, SAAKM_READY);
		break;
	case SAAKM_RUNNING:
		/* Outranked while running: resume first on this CPU later. */
		saakm_park(p, cpu_of(rq), rotate);
		break;
	case SAAKM_READY:
		/* Put back by yield() or tick(): the policy will pick it. */
		break;
	default:
		/*
		 * Still runnable, but neither running nor in a runqueue: the
		 * policy dropped it. Report it and keep the task alive.
		 */
		saakm_eject(p->saakm.policy, SAAKM_EJECT_CALLBACK,
			    "task %d left cpu %d in state %s while runnable",
			    p->pid, cpu_of(rq), saakm_state_name(p->saakm.state));
		saakm_force_state(p, SAAKM_RUNNING);
		saakm_park(p, cpu_of(rq), true);
		break;
	}
}

/*
 * @p, woken up, gets its CPU: count the wait in the CPU's histogram of
 * wake-to-run latency (/proc/saakm/cpus). A migration since the wakeup
 * compares two CPUs' clocks, which may differ by a little: never below 0.
 */
static void note_wake_latency(struct rq *rq, struct task_struct *p)
{
	struct saakm_policy_pcpu *pc = pol_pcpu(p->saakm.policy, cpu_of(rq));
	s64 ns = rq_clock(rq) - p->saakm.woken_at;
	u64 us;

	p->saakm.woken_at = 0;
	ns = max_t(s64, ns, 0);
	us = div_u64(ns, NSEC_PER_USEC);
	pc->wake_hist[min_t(int, us ? fls64(us) : 0, SAAKM_WAKE_HIST_BUCKETS - 1)]++;
	pc->wake_sum_ns += ns;
}

static void set_next_task_saakm(struct rq *rq, struct task_struct *p, bool first)
{
	p->se.exec_start = rq_clock_task(rq);
	if (first && p->saakm.woken_at)
		note_wake_latency(rq, p);

	/* The pick is final now (see pick_task_saakm()). */
	saakm_unpark(p, cpu_of(rq));

	/*
	 * A READY task picked (@first) without the policy, which core
	 * scheduling does when it looks for a task with a given cookie, leaves
	 * the policy's runqueue to run. One that is READY without a pick
	 * (@first false) joined, or came back from a boost, while running, and
	 * was placed by the policy: let the policy pick now. An ejected
	 * policy placed nothing: the task is its CPU's RUNNING one. One not
	 * queued is going to sleep (it joined, or was unboosted, while its
	 * CPU had dropped the rq lock in the middle of switching it out):
	 * it stays BLOCKED for its wakeup to place it.
	 */
	if (first && saakm_is_ready(p->saakm.state))
		saakm_force_state(p, SAAKM_RUNNING);
	else if (saakm_is_ready(p->saakm.state))
		resched_curr(rq);
	else if ((p->saakm.flags & SAAKM_TF_QUEUED) &&
		 (p->saakm.state == SAAKM_NOT_QUEUED || p->saakm.state == SAAKM_BLOCKED))
		saakm_force_state(p, SAAKM_RUNNING);

	/*
	 * A preempt kick that came while it was outranked applies now. In a
	 * pick (@first), rq->curr is still the previous task, whose
	 * need_resched __schedule() clears after the pick: a resched_curr()
	 * here would be lost and @p, put back by preempt(), would run on. So
	 * the kick's irq_work delivers it once @p is rq->curr.
	 */
	if (unlikely(per_cpu(saakm_cpus, cpu_of(rq)).preempt_slots)) {
		if (first)
			irq_work_queue(&per_cpu(saakm_cpus, cpu_of(rq)).kick_work);
		else if (saakm_preempt_task(rq, p))
			resched_curr(rq);
	}
}

/*
 * A preempt kick of @p's policy is pending on @rq, and @p is the task of
 * that policy about to run (or running) there: let the policy preempt it
 * (preempt(), or tick() for a policy without one). Return true if it did.
 */
static bool saakm_preempt_task(struct rq *rq, struct task_struct *p)
{
	struct saakm_cpu *sc = &per_cpu(saakm_cpus, cpu_of(rq));
	struct saakm_policy *pol = p->saakm.policy;
	int cpu = cpu_of(rq);

	if (!pol || !test_and_clear_bit(pol->slot, &sc->preempt_slots) ||
	    p->saakm.state != SAAKM_RUNNING || !(p->saakm.flags & SAAKM_TF_QUEUED))
		return false;
	if (pol->ops.preempt)
		saakm_call(pol, cpu, p, preempt, p, cpu);
	else
		saakm_call(pol, cpu, p, tick, p, cpu);
	return p->saakm.state == SAAKM_READY_TICK;
}

/*
 * Carry out the kicks of @rq's CPU, @rq locked, clock updated: from the
 * kick's irq_work (hard irq), or when a placement that kicked its own rq
 * returns (see saakm_kick_cpu()). A preempt kick for a policy whose task
 * is not on the CPU now (another class or policy outranks it) stays
 * pending until that task resumes: set_next_task_saakm() delivers it.
 */
static void saakm_kick_locked(struct rq *rq)
{
	struct saakm_cpu *sc = &per_cpu(saakm_cpus, cpu_of(rq));
	struct task_struct *curr = rq->curr;

	if (!sc->live) {
		sc->preempt_slots = 0;
	} else if (is_idle_task(curr)) {
		sc->preempt_slots = 0;
		resched_curr(rq);
	} else if (curr->sched_class == &saakm_sched_class) {
		update_curr_saakm(rq);
		if (saakm_preempt_task(rq, curr))
			resched_curr(rq);
	}
}

/*
 * A placement on @rq kicked @rq's CPU (@rq locked). To preempt the task of
 * the kicking policy that runs there, reschedule the CPU and leave the kick
 * pending: pick_task_saakm() hands the task to preempt() when the CPU
 * switches, charged for all its time. Asked at once, the policy would put
 * the waker back while it still runs, and what it runs until it switches
 * would be missing from the policy's view of the others (the woken task's
 * lag when it sleeps again).
 */
static void saakm_kick_due(struct rq *rq)
{
	struct saakm_cpu *sc = &per_cpu(saakm_cpus, cpu_of(rq));
	struct task_struct *curr = rq->curr;

	if (likely(__this_cpu_read(saakm_ctx.kick_due) != rq))
		return;
	__this_cpu_write(saakm_ctx.kick_due, NULL);
	if (sc->live && curr->sched_class == &saakm_sched_class &&
	    test_bit(curr->saakm.policy->slot, &sc->preempt_slots))
		resched_curr(rq);
	else
		saakm_kick_locked(rq);
}

static void saakm_kick_workfn(struct irq_work *work)
{
	struct rq *rq = this_rq();

	raw_spin_rq_lock(rq);
	update_rq_clock(rq);
	saakm_kick_locked(rq);
	raw_spin_rq_unlock(rq);
}

/**
 * saakm_kick_cpu - make a CPU reconsider what it runs, soon
 * @pol: the calling policy
 * @cpu: the CPU to kick
 * @flags: 0, or %SAAKM_KICK_PREEMPT
 *
 * An idle @cpu reschedules: it wakes up, even with its tick stopped, and
 * with no task of its own calls newly_idle(), so a policy can make idle
 * CPUs pull work. With %SAAKM_KICK_PREEMPT, the task of @pol running on
 * @cpu is handed to @pol's preempt() (tick() if it has none), which may
 * put it back in a runqueue: wakeup preemption, or slices shorter than a
 * tick from a policy's hrtimer. If another class or policy holds @cpu at
 * that moment, @pol's task gets preempt() when it resumes there. A busy
 * @cpu is otherwise left alone.
 *
 * Callable from any callback and from any context, interrupts on or off.
 * The kick needs the rq lock of @cpu, which the caller may hold, so it is
 * carried out by an irq_work on @cpu: at once for another CPU (an IPI), at
 * the end of the callback or interrupt for this one. A kick of @cpu from
 * a placement there (new_place() or unblock_place(): wakeup preemption)
 * needs no irq_work: the class reschedules @cpu once the task is placed,
 * and preempt() runs when @cpu switches. Kicks are not counted: several
 * before the irq_work runs make one. An offline @cpu is not kicked.
 */
void saakm_kick_cpu(struct saakm_policy *pol, int cpu, unsigned int flags)
{
	struct saakm_cpu *sc;
	unsigned long irqflags;

	if (unlikely(cpu < 0 || cpu >= nr_cpu_ids)) {
		saakm_policy_error(pol, "kicked CPU %d, which does not exist", cpu);
		return;
	}
	sc = &per_cpu(saakm_cpus, cpu);
	if (flags & SAAKM_KICK_PREEMPT)
		set_bit(pol->slot, &sc->preempt_slots);
	/* with interrupts off here, @cpu cannot finish going offline */
	local_irq_save(irqflags);
	if (__this_cpu_read(saakm_ctx.placing) == cpu_rq(cpu))
		__this_cpu_write(saakm_ctx.kick_due, cpu_rq(cpu));
	else if (cpu_online(cpu))
		irq_work_queue_on(&sc->kick_work, cpu);
	local_irq_restore(irqflags);
}
EXPORT_SYMBOL_GPL(saakm_kick_cpu);

#ifdef CONFIG_SMP
/* Both runqueues locked: move @p from @src to @dst. */
static void move_task(struct rq *src, struct rq *dst, struct task_struct *p)
{
	deactivate_task(src, p, 0);
	set_task_cpu(p, cpu_of(dst));
	activate_task(dst, p, 0);
	wakeup_preempt(dst, p, 0);
}

/* Both runqueues locked: ask @pol for one task of @src to move to @dst. */
static bool saakm_pull_one(struct rq *src, struct rq *dst, struct saakm_policy *pol)
{
	int src_cpu = cpu_of(src), dst_cpu = cpu_of(dst);
	struct task_struct *p;

	/* the call is about @src_cpu: the recorder takes dst as this CPU */
	p = saakm_call_ret(pol, src_cpu, NULL, NULL, balance_pick, src_cpu, dst_cpu);
	if (!p)
		return false;
	switch (saakm_pull_verdict(p->saakm.state, task_rq(p) == src,
				   p->saakm.flags & SAAKM_TF_QUEUED, task_on_cpu(src, p),
				   saakm_can_migrate(p, dst_cpu))) {
	case SAAKM_PULL_MOVE:
		move_task(src, dst, p);
		return true;
	case SAAKM_PULL_GIVE_BACK:
		saakm_call(pol, src_cpu, p, unblock_place, p, src_cpu);
		saakm_check_placed(p, src_cpu, SAAKM_EV_UNBLOCK_PLACE);
		return false;
	case SAAKM_PULL_BAD:
		break;
	}
	saakm_eject(pol, SAAKM_EJECT_BAD_PICK, SAAKM_ERR_BAD_BALANCE_PICK,
		    src_cpu, dst_cpu, p->pid);
	if (p->saakm.state == SAAKM_MIGRATING && task_rq(p) == src)
		saakm_call(pol, src_cpu, p, unblock_place, p, src_cpu);
	return false;
}

/*
 * Pull up to balance_max tasks of @pol from @src_cpu to @dst, with both
 * runqueues locked. @dst is locked on entry and exit; double_lock_balance()
 * may drop it meanwhile, which is why the caller re-checks for work
 * afterwards.
 */
static bool saakm_pull(struct rq *dst, int src_cpu, struct saakm_policy *pol)
{
	unsigned int n, max = max(pol->ops.balance_max, 1U);
	struct rq *src = cpu_rq(src_cpu);

	double_lock_balance(dst, src);
	update_rq_clock(src);
	for (n = 0; n < max && saakm_pull_one(src, dst, pol); n++)
		;
	double_unlock_balance(dst, src);
	return n > 0;
}

static bool valid_src(int src, int dst)
{
	return src >= 0 && src < nr_cpu_ids && src != dst &&
	       per_cpu(saakm_cpus, src).live;
}

/*
 * __pick_next_task()'s fast path, as the fair class has one: the previous
 * task is ours or the idle task, and only our tasks are runnable here. No
 * other class can pick, and no balance() would run (balance_saakm() would
 * return at once as there is work; the idle class has none), so pick
 * without them; NULL sends the core down its full loop. sched_ext wants
 * its balance() before every pick while it is enabled: no fast path then.
 */
struct task_struct *saakm_pick_only(struct rq *rq)
{
	struct task_struct *p;

	if (scx_enabled() || !rq->nr_running ||
	    rq->nr_running != per_cpu(saakm_cpus, cpu_of(rq)).nr_queued)
		return NULL;
	p = pick_task_saakm(rq);
	if (p)
		put_prev_set_next_task(rq, rq->donor, p);
	return p;
}

/*
 * Before a pick, when the CPU is about to run out of SaaKM work: give every
 * policy with newly_idle() a chance to pull a task here.
 */
static int balance_saakm(struct rq *rq, struct task_struct *prev, struct rq_flags *rf)
{
	struct saakm_policy *pol;
	int cpu = cpu_of(rq);

	if (curr_keeps_cpu(rq, prev) || saakm_has_work(rq, NULL))
		return 1;
	if (!saakm_balancing() || !per_cpu(saakm_cpus, cpu).live)
		return 0;

	for_each_saakm_policy(pol) {
		int src;

		/* A policy with no task has nothing to pull: not asked. */
		if (pol->state != SAAKM_POLICY_ENABLED || !atomic_read(&pol->nr_tasks))
			continue;
		src = saakm_call_ret(pol, cpu, NULL, -1, newly_idle, cpu);
		if (!valid_src(src, cpu))
			continue;
		rq_unpin_lock(rq, rf);
		saakm_pull(rq, src, pol);
		rq_repin_lock(rq, rf);
		if (saakm_has_work(rq, NULL))
			return 1;
	}
	return rq->nr_running > 0;
}

/* Periodic balancing, in hard irq context out of the tick; no lock held. */
static void saakm_balance_workfn(struct irq_work *work)
{
	int cpu = smp_processor_id();
	struct rq *rq = cpu_rq(cpu);
	struct saakm_policy *pol;

	if (!per_cpu(saakm_cpus, cpu).live)
		return;
	rcu_read_lock();
	for_each_saakm_policy(pol) {
		struct saakm_policy_pcpu *pc = pol_pcpu(pol, cpu);
		int src;

		if (!pc->balance_due || pol->state != SAAKM_POLICY_ENABLED)
			continue;
		pc->balance_due = false;
		src = saakm_call_ret(pol, cpu, NULL, -1, balancing_select, cpu);
		if (!valid_src(src, cpu))
			continue;
		raw_spin_rq_lock(rq);
		update_rq_clock(rq);
		saakm_pull(rq, src, pol);
		raw_spin_rq_unlock(rq);
	}
	rcu_read_unlock();
}

/**
 * __saakm_tick - per-CPU stall check and periodic balancing trigger
 * @rq: runqueue of the ticking CPU, locked
 *
 * Called from sched_tick() for every CPU, whatever class is running, while
 * a policy is registered: the per-CPU stall check (saakm_safety.c), and
 * periodic balancing, from an irq_work once the tick released the rq lock.
 */
void __saakm_tick(struct rq *rq)
{
	struct saakm_policy *pol;
	bool due = false;

	if (!per_cpu(saakm_cpus, cpu_of(rq)).live)
		return;

	for_each_saakm_policy(pol) {
		struct saakm_policy_pcpu *pc = pol_pcpu(pol, cpu_of(rq));

		if (READ_ONCE(pol->state) != SAAKM_POLICY_ENABLED)
			continue;
		saakm_check_cpu_stall(pol, cpu_of(rq));
		/* no task: nothing to balance, and no irq_work to raise */
		if (!saakm_balancing() || !pol->ops.balance_ms ||
		    !atomic_read(&pol->nr_tasks) ||
		    time_before(jiffies, pc->next_balance))
			continue;
		pc->next_balance = jiffies + msecs_to_jiffies(pol->ops.balance_ms);
		pc->balance_due = true;
		due = true;
	}
	if (due)
		irq_work_queue(&per_cpu(saakm_cpus, cpu_of(rq)).balance_work);
}

/*
 * Choose the CPU for a waking or new task. The policy decides; if it names
 * a CPU the task may not use, report it and let the core fall back. For a
 * new task, new_prepare() already ran at fork (saakm_fork()), because the
 * core skips this hook for tasks bound to one CPU: use its answer.
 */
static int select_task_rq_saakm(struct task_struct *p, int prev_cpu, int wake_flags)
{
	struct saakm_policy *pol = p->saakm.policy;
	int cpu = prev_cpu;

	if (!pol)
		return prev_cpu;

	if (wake_flags & WF_FORK) {
		cpu = p->saakm.cpu;
		/* cpuset attach may have narrowed the affinity since the fork */
		if (cpu < 0 || !cpumask_test_cpu(cpu, p->cpus_ptr))
			cpu = prev_cpu;
		return cpu;
	}
	/*
	 * Only the policy's own answer must be in the affinity: the default,
	 * prev_cpu, may not be (the affinity changed while the task slept),
	 * and the core then falls back by itself (select_fallback_rq()).
	 */
	if (!(wake_flags & WF_TTWU) || !pol->ops.unblock_prepare || saakm_bypassing(pol))
		return prev_cpu;
	cpu = saakm_call_ret(pol, prev_cpu, p, prev_cpu, unblock_prepare, p);
	if (unlikely(!saakm_cpu_ok(p, cpu, nr_cpu_ids))) {
		saakm_eject(pol, SAAKM_EJECT_WRONG_CPU, SAAKM_ERR_OUTSIDE_AFFINITY,
			    cpu, p->pid);
		cpu = prev_cpu;
	}
	return cpu;
}

/*
 * @p moves to @new_cpu (set_task_cpu(), task_cpu(p) is still the old one).
 * Its wait is timed on a per-CPU clock (saakm_wait_clock()): carry it over
 * to the new CPU's clock, or the watchdog would see the difference of the
 * two clocks as waiting.
 */
static void migrate_task_rq_saakm(struct task_struct *p, int new_cpu)
{
	struct saakm_policy *pol = p->saakm.policy;

	if (pol)
		p->saakm.ready_at += saakm_wait_clock(pol, new_cpu) -
				     saakm_wait_clock(pol, task_cpu(p));
}

#endif /* CONFIG_SMP */

/**
 * saakm_cpu_starting - a CPU comes up: open its core_entry/core_exit bracket
 * @cpu: the CPU, which runs this with interrupts off
 *
 * Called from sched_cpu_starting(), before the CPU's tick starts and before
 * it can run any task. rq_online/rq_offline are not used for this: root
 * domain rebuilds (cpusets) call them for CPUs that stay up.
 */
void saakm_cpu_starting(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	struct saakm_policy *pol;
	struct rq_flags rf;

	rq_lock_irqsave(rq, &rf);
	per_cpu(saakm_cpus, cpu).live = true;
	for_each_saakm_policy(pol)
		if (READ_ONCE(pol->state) == SAAKM_POLICY_ENABLED)
			saakm_core_entry(pol, cpu);
	rq_unlock_irqrestore(rq, &rf);
}

/**
 * saakm_cpu_dying - a CPU goes down: close its bracket
 * @rq: its runqueue, locked; every task has left it
 *
 * Called from sched_cpu_dying(), after the last SaaKM task was pushed off
 * the CPU, so a policy sees no per-CPU callback for @rq after core_exit().
 */
void saakm_cpu_dying(struct rq *rq)
{
	struct saakm_cpu *sc = &per_cpu(saakm_cpus, cpu_of(rq));
	struct saakm_policy *pol;

	if (dl_server_active(&sc->server))
		dl_server_stop(&sc->server);
	sc->live = false;
	for_each_saakm_policy(pol)
		saakm_core_exit(pol, cpu_of(rq));
}

static void task_tick_saakm(struct rq *rq, struct task_struct *p, int queued)
{
	struct saakm_policy *pol = p->saakm.policy;

	update_curr_saakm(rq);
	if (!pol)
		return;
	/*
	 * Other RUNNING tasks of this policy wait parked (the class runs an
	 * ejected policy's tasks that way; core scheduling can also leave a
	 * thrown-away pick parked): they share the CPU round robin, since the
	 * policy, which sees them all running, will not preempt one for another.
	 */
	if (!list_empty(&pol_pcpu(pol, cpu_of(rq))->preempted) &&
	    saakm_running_ns(p) >= SAAKM_BYPASS_SLICE_NS) {
		p->saakm.flags |= SAAKM_TF_ROTATE;
		resched_curr(rq);
	}
	/*
	 * Already put back (by preempt() or an earlier tick(), the switch not
	 * done yet): it no longer runs for the policy, which is not asked again.
	 */
	if (p->saakm.state != SAAKM_RUNNING) {
		/* Put back yet still running: its resched was lost, switch now. */
		if (p->saakm.flags & SAAKM_TF_QUEUED)
			resched_curr(rq);
		return;
	}
	saakm_call(pol, cpu_of(rq), p, tick, p, cpu_of(rq));
	/* tick() may have moved curr anywhere: put_prev_task() checks that. */
	if (p->saakm.state == SAAKM_READY_TICK)
		resched_curr(rq);
}

static void task_dead_saakm(struct task_struct *p)
{
	struct rq_flags rf;
	struct rq *rq;

	rq = task_rq_lock(p, &rf);
	saakm_detach(p);
	task_rq_unlock(rq, p, &rf);
}

/*
 * A PI boost moved the task to RT while it keeps SCHED_SAAKM: it stays
 * attached, but must leave the policy's runqueues until it comes back (its
 * enqueue then places it again). A real policy change detached it already
 * in saakm_setparams().
 */
static void switched_from_saakm(struct rq *rq, struct task_struct *p)
{
	struct saakm_policy *pol = p->saakm.policy;

	p->saakm.woken_at = 0;
	if (!pol || p->saakm.state == SAAKM_BLOCKED)
		return;
	saakm_unpark(p, cpu_of(rq));
	if (p->saakm.state != SAAKM_NOT_QUEUED)
		saakm_call(pol, cpu_of(rq), p, block, p, cpu_of(rq));
	if (p->saakm.state != SAAKM_BLOCKED)
		saakm_force_state(p, SAAKM_BLOCKED);
}

/*
 * A task entering the class is now below every fair task: if it is the one
 * running (it switched itself, or a priority boost ended), let the core
 * pick again so that higher classes get the CPU.
 */
static void switched_to_saakm(struct rq *rq, struct task_struct *p)
{
	if (task_current(rq, p))
		resched_curr(rq);
	else if (task_on_rq_queued(p))
		wakeup_preempt(rq, p, 0);
}

static void prio_changed_saakm(struct rq *rq, struct task_struct *p, int oldprio)
{
	struct saakm_policy *pol = p->saakm.policy;
	struct saakm_attr attr = { .nice = task_nice(p), .runtime = p->saakm.runtime };

	if (pol && p->prio != oldprio)
		saakm_call(pol, cpu_of(rq), p, setparam_attr, p, &attr);
}

/**
 * saakm_update_idle - tell policies a CPU enters or leaves its idle task
 * @rq: the CPU's runqueue, locked
 * @idle: true when the idle task is about to run
 *
 * Called by saakm_set_idle() on a change, while a policy listens.
 */
void saakm_update_idle(struct rq *rq, bool idle)
{
	struct saakm_policy *pol;
	int cpu = cpu_of(rq);

	if (!this_cpu_read(saakm_cpus.live))
		return;
	for_each_saakm_policy(pol) {
		if (pol->state != SAAKM_POLICY_ENABLED)
			continue;
		if (idle)
			saakm_call(pol, cpu, NULL, enter_idle, cpu);
		else
			saakm_call(pol, cpu, NULL, exit_idle, cpu);
	}
}

/**
 * init_saakm_entity - reset the SaaKM state of a new task
 * @p: task being forked; its fields were copied from the parent
 */
void init_saakm_entity(struct task_struct *p)
{
	struct sched_saakm_entity *se = &p->saakm;

	memset(se, 0, sizeof(*se));
	INIT_LIST_HEAD(&se->node);
	RB_CLEAR_NODE(&se->rb);
	INIT_LIST_HEAD(&se->core_node);
	INIT_LIST_HEAD(&se->policy_node);
	se->cpu = -1;
}

static int __init saakm_class_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct saakm_cpu *sc = &per_cpu(saakm_cpus, cpu);

		init_irq_work(&sc->balance_work, saakm_balance_workfn);
		init_irq_work(&sc->kick_work, saakm_kick_workfn);
		saakm_server_init(cpu, saakm_server_pick);
	}
	/* Before SMP bring-up: the other CPUs go through saakm_cpu_starting(). */
	for_each_online_cpu(cpu)
		per_cpu(saakm_cpus, cpu).live = true;
	return 0;
}
early_initcall(saakm_class_init);

DEFINE_SCHED_CLASS(saakm) = {
	.enqueue_task		= enqueue_task_saakm,
	.dequeue_task		= dequeue_task_saakm,
	.yield_task		= yield_task_saakm,

	.wakeup_preempt		= wakeup_preempt_saakm,

	.pick_task		= pick_task_saakm,
	.put_prev_task		= put_prev_task_saakm,
	.set_next_task		= set_next_task_saakm,

#ifdef CONFIG_SMP
	.balance		= balance_saakm,
	.select_task_rq		= select_task_rq_saakm,
	.task_woken		= task_woken_saakm,
	.migrate_task_rq	= migrate_task_rq_saakm,
	.set_cpus_allowed	= set_cpus_allowed_common,
#endif

	.task_tick		= task_tick_saakm,
	.task_dead		= task_dead_saakm,

	.switched_from		= switched_from_saakm,
	.switched_to		= switched_to_saakm,
	.prio_changed		= prio_changed_saakm,
	.update_curr		= update_curr_saakm,
};
