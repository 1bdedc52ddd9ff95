// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_eevdf: EEVDF (Earliest Eligible Virtual Deadline First) as Linux
 * 6.12 runs it in kernel/sched/fair.c, rewritten as a SaaKM policy, without
 * cgroups and without DELAY_DEQUEUE.
 *
 * The idea in four lines. Every task has a virtual runtime v_i: the CPU time
 * it received divided by its weight (w_i, from its nice value). V is the
 * weighted average of the v_i of a CPU's tasks. A task is *eligible* when
 * v_i <= V (it received no more than its share). Each request of a slice r_i
 * gets a *virtual deadline* d_i = v_i + r_i / w_i. Run the eligible task
 * with the earliest virtual deadline.
 *
 * Map to fair.c (the 6.12.y of build/linux), in the order of this file:
 *   eevdf_task, eevdf_cpu   sched_entity; cfs_rq: zero_vruntime (6.12.0's
 *                           min_vruntime, kept at V), avg_vruntime, avg_load,
 *                           curr, the tree: an RBTREE runqueue by deadline
 *   base_slice_ns           sysctl_sched_base_slice, 0.7 ms * (1 + ilog2(
 *                           min(CPUs, 8))) (SCHED_TUNABLESCALING_LOG)
 *   calc_delta_fair, avg_*, entity_lag, *_eligible: the same names
 *   update_deadline/_curr   the same (with did_preempt_short), fed by
 *                           saakm_exec_ns() deltas (sum_exec_runtime)
 *   pick_eevdf, place_entity  the same (RUN_TO_PARITY; PLACE_LAG,
 *                           PLACE_DEADLINE_INITIAL, PLACE_REL_DEADLINE)
 *   set_next, put_prev      set_next_entity (set_protect_slice), put_prev_entity
 *   eevdf_place             enqueue_entity + check_preempt_wakeup_fair
 *   take_off (block, pull)  dequeue_entity (update_entity_lag)
 *   eevdf_tick, _preempt    entity_tick and the resched it causes
 *   eevdf_yield             yield_task_fair
 *   eevdf_setparam_attr     reweight_eevdf, __setscheduler_params' clamp;
 *                           at fork, the parent's slice (se->slice copied)
 *
 * The pick. fair.c's rbtree by deadline is augmented with each subtree's
 * minimum vruntime: O(log n). SaaKM's runqueues are not (nor is
 * <linux/rbtree_augmented.h> in the policy subset), so the pick walks the
 * runqueue from the earliest deadline to the first eligible task: O(1)
 * usually (an ineligible task's deadline is later than an eligible one's of
 * the same weight and slice), O(n) when many heavy or short-slice
 * ineligible tasks come first. The host tests measure it per pick.
 *
 * What differs from fair.c, and why:
 *   - Preempting is putting the running task back (READY_TICK); a wakeup's
 *     saakm_kick_cpu(PREEMPT) has preempt() decide again by the same rule.
 *   - Balancing: not fair.c's (sched domains, PELT, capacities). An idle
 *     CPU pulls from the CPU with the most weight (newly_idle), a busy CPU's
 *     tick wakes an idle one that could take a waiting task (NOHZ kick), and
 *     every balance_ms each CPU pulls from the heaviest waiting tasks lighter
 *     than the weight difference; a difference of exactly one task swaps
 *     roles if the task left alone was served less than the one that had a
 *     CPU to itself, so 3 equal tasks on 2 CPUs each get about 2/3 of a CPU.
 *     Lag and the relative deadline travel with a moved task, as in fair.c.
 *   - Starvation guard: EEVDF runs a nice 19 task next to a nice -20 hog for
 *     a tick every ~24 s, past SaaKM's stall watchdog (5 s). A task waiting
 *     over starve_ms runs next, from V (debt dropped, see forgive_debt()).
 *     EEVDF makes a task wait about a tick times its CPU's weight over its
 *     own: only tasks under 1/750 of it are concerned, the 2 s left serve
 *     500 of them per CPU.
 *   - Wakeup CPU: the previous one if idle, else an idle allowed one, else
 *     the previous one (fair.c: wake_affine and select_idle_sibling).
 *   - A waiting task's new weight applies when it leaves the runqueue: its
 *     deadline is the runqueue's key and cannot change there.
 *
 * Good at what fair.c is good at: shares by nice value, short wakeup latency
 * for frequent sleepers (lag is kept), sched_runtime latency requests. Bad
 * at: many ineligible short virtual slices queued before eligible long ones
 * (O(n) picks), many CPUs or NUMA (no topology), cgroup shares (no groups).
 *
 * Parameters (module_param_cb: a bad value is refused, not clamped):
 *   base_slice_us  700 (100..100000): the slice before CPU scaling
 *   run_to_parity  Y: wakeups do not preempt a task before its request ends
 *                  while it is eligible (RUN_TO_PARITY)
 *   starve_ms      3000 (0 = off, 10..60000): the starvation guard
 *   balance_ms     32 (0 = off, 1..1000; at load only): periodic balancing,
 *                  fair.c's busy interval on two CPUs (2 ms * busy_factor 16)
 */
#include <linux/math64.h>
#include <linux/saakm.h>
#include <linux/slab.h>

#define NICE_0_WEIGHT		1024
#define EEVDF_TICK_NS		(NSEC_PER_SEC / HZ)
#define EEVDF_MIN_SLICE_NS	((u64)NSEC_PER_MSEC / 10)	/* fair.c's sched_runtime clamp */
#define EEVDF_MAX_SLICE_NS	((u64)NSEC_PER_MSEC * 100)
#define EEVDF_BALANCE_MAX	32	/* the weight rule stops a balance first */
#define EEVDF_KICK_SCAN		4	/* waiting tasks checked for a NOHZ kick */

SAAKM_PARAM_UINT(base_slice_us, 700, 100, 100000, 0644, "slice in us before scaling by 1 + ilog2(CPUs)");
SAAKM_PARAM_UINT_OFF(starve_ms, 3000, 10, 60000, 0644, "run a task waiting this long next");
SAAKM_PARAM_UINT_OFF(balance_ms, 32, 1, 1000, 0444, "periodic balancing period");
static bool run_to_parity = true;
module_param(run_to_parity, bool, 0644);
MODULE_PARM_DESC(run_to_parity, "no wakeup preemption before the request ends, while eligible");

/* Per task: fair.c's sched_entity, the fields EEVDF needs. */
struct eevdf_task {
	u64 vruntime;		/* v_i, ns of CPU time * 1024 / weight */
	u64 deadline;		/* d_i; relative to v_i while rel_deadline */
	s64 vlag;		/* V - v_i, saved when it left a CPU */
	u64 slice;		/* r_i, ns */
	u64 protect;		/* RUN_TO_PARITY: the deadline it was picked with */
	u64 exec_seen;		/* saakm_exec_ns() already charged */
	u64 queued_at;		/* waiting since (saakm_clock_ns() at a tick), or 0 */
	struct list_head wait_node; /* in eevdf_cpu.waiting */
	struct task_struct *task; /* whose data this is */
	unsigned int weight;
	unsigned int new_weight; /* applied when it leaves the runqueue */
	int cpu;		/* CPU whose sums count it, -1 for none */
	bool custom_slice;	/* the slice came from sched_runtime */
	bool rel_deadline;	/* moved, not slept: keep the deadline */
};

/* Per CPU: fair.c's cfs_rq. All fields under rq(cpu)'s lock. */
struct eevdf_cpu {
	struct saakm_rq rq;		/* waiting tasks, by deadline */
	struct list_head waiting;	/* the same, oldest first */
	struct task_struct *curr;	/* running, not in @rq or the sums */
	struct task_struct *prev;	/* put back; re-picked without protection */
	struct task_struct *starved;	/* waiting, to run next: the guard's choice */
	u64 zero_vruntime;		/* v0: keys are v_i - v0 */
	s64 avg_vruntime;		/* \Sum (v_i - v0) * w_i over @rq */
	s64 avg_load;			/* \Sum w_i over @rq */
	unsigned long load;		/* weight of @rq and @curr, read unlocked: load_of() */
	bool may_swap;			/* periodic balance: may swap roles once */
};

static DEFINE_PER_CPU(struct eevdf_cpu, eevdf_cpus);

static struct eevdf_cpu *cpu_of(int cpu)
{
	return per_cpu_ptr(&eevdf_cpus, cpu);
}

static struct eevdf_task *ev(struct task_struct *p)
{
	return *saakm_task_data(p);
}

/* The runqueue's order: fair.c's entity_before(). */
static bool deadline_before(struct task_struct *a, struct task_struct *b)
{
	return (s64)(ev(a)->deadline - ev(b)->deadline) < 0;
}

/* 1 + ilog2(min(online CPUs, 8)) times the normalized slice. */
static u64 base_slice_ns(void)
{
	unsigned int cpus = min(num_online_cpus(), 8U), factor = 1;

	while (cpus >>= 1)
		factor++;
	return (u64)READ_ONCE(base_slice_us) * NSEC_PER_USEC * factor;
}

/* delta / w: real time to virtual time for this task. */
static u64 calc_delta_fair(u64 delta, struct eevdf_task *t)
{
	if (t->weight == NICE_0_WEIGHT)
		return delta;
	return mul_u64_u32_div(delta, NICE_0_WEIGHT, t->weight);
}

static s64 entity_key(struct eevdf_cpu *ec, struct eevdf_task *t)
{
	return (s64)(t->vruntime - ec->zero_vruntime);
}

static void set_load(struct eevdf_cpu *ec, long delta)
{
	WRITE_ONCE(ec->load, ec->load + delta);
}

/* @cpu's load, read without its lock: saakm_read_cpu() records it for replay. */
#define load_of(pol, cpu)	saakm_read_cpu(pol, cpu, READ_ONCE(cpu_of(cpu)->load))

/* A waiting task joins (+1) or leaves (-1) the sums V is computed from. */
static void avg_update(struct eevdf_cpu *ec, struct eevdf_task *t, int sign)
{
	ec->avg_vruntime += sign * entity_key(ec, t) * t->weight;
	ec->avg_load += sign * (s64)t->weight;
}

/*
 * V, the weighted average vruntime of the waiting and running tasks. The
 * sums are relative to zero_vruntime, to stay small; computing V moves
 * zero_vruntime to it (the sums shift by load * delta). Rounded down, so
 * that a task at V is eligible.
 */
static u64 avg_vruntime(struct eevdf_cpu *ec)
{
	s64 sum = ec->avg_vruntime, load = ec->avg_load, delta = 0;
	struct eevdf_task *curr = ec->curr ? ev(ec->curr) : NULL;

	if (load) {
		if (curr) {
			sum += entity_key(ec, curr) * curr->weight;
			load += curr->weight;
		}
		if (sum < 0)
			sum -= load - 1;
		delta = div64_s64(sum, load);
	} else if (curr) {
		delta = entity_key(ec, curr);
	}
	ec->avg_vruntime -= ec->avg_load * delta;
	ec->zero_vruntime += delta;
	return ec->zero_vruntime;
}

/* v_i <= V, without dividing: \Sum (v_j - v0) w_j >= (v_i - v0) \Sum w_j. */
static bool vruntime_eligible(struct eevdf_cpu *ec, u64 vruntime)
{
	s64 sum = ec->avg_vruntime, load = ec->avg_load;

	if (ec->curr) {
		struct eevdf_task *curr = ev(ec->curr);

		sum += entity_key(ec, curr) * curr->weight;
		load += curr->weight;
	}
	return sum >= (s64)(vruntime - ec->zero_vruntime) * load;
}

/* Lag V - v_i, bounded by two slices (at least a tick) of virtual time. */
static s64 entity_lag(u64 avruntime, struct eevdf_task *t)
{
	s64 limit = calc_delta_fair(max_t(u64, 2 * t->slice, EEVDF_TICK_NS), t);

	return clamp((s64)(avruntime - t->vruntime), -limit, limit);
}

/* RUN_TO_PARITY: protected while the deadline it was picked with holds. */
static bool protect_slice(struct eevdf_task *t)
{
	return t->protect == t->deadline;
}

static void cancel_protect_slice(struct eevdf_task *t)
{
	if (protect_slice(t))
		t->protect = t->deadline + 1;
}

/* Slice used up (v_i reached d_i): request a new one, d_i = v_i + r_i / w_i. */
static bool update_deadline(struct eevdf_cpu *ec, struct eevdf_task *t)
{
	if ((s64)(t->vruntime - t->deadline) < 0)
		return false;
	if (!t->custom_slice)
		t->slice = base_slice_ns();
	t->deadline = t->vruntime + calc_delta_fair(t->slice, t);
	avg_vruntime(ec);
	return true;
}

/* PREEMPT_SHORT at the tick: an unprotected task loses the CPU once ineligible. */
static bool did_preempt_short(struct eevdf_cpu *ec, struct eevdf_task *t)
{
	return !protect_slice(t) && !vruntime_eligible(ec, t->vruntime);
}

/*
 * Charge the running task its CPU time since the last call (saakm_exec_ns():
 * saakm_running_ns() would lose what put_prev_entity() charges). True if the
 * CPU should pick again (fair.c's resched): others wait and the slice is
 * used up, or the task lost eligibility outside its protection.
 */
static bool update_curr(struct eevdf_cpu *ec)
{
	struct eevdf_task *t;
	bool resched;
	u64 now;

	if (!ec->curr)
		return false;
	t = ev(ec->curr);
	now = saakm_exec_ns(ec->curr);
	if ((s64)(now - t->exec_seen) <= 0)
		return false;
	t->vruntime += calc_delta_fair(now - t->exec_seen, t);
	t->exec_seen = now;
	resched = update_deadline(ec, t);
	if (!saakm_rq_len(&ec->rq))
		return false;
	return resched || did_preempt_short(ec, t);
}

/*
 * The eligible task with the earliest deadline among the waiting ones and
 * ec->curr (maybe NULL). The runqueue is ordered by deadline: the walk stops
 * at its first eligible task (see the top of the file for its cost).
 */
static struct task_struct *pick_eevdf(struct eevdf_cpu *ec)
{
	struct task_struct *curr = ec->curr, *p, *best = NULL;
	struct task_struct *first = saakm_rq_first(&ec->rq);

	if (!first)
		return curr;
	if (!curr && saakm_rq_len(&ec->rq) == 1)
		return first;
	if (curr && !vruntime_eligible(ec, ev(curr)->vruntime))
		curr = NULL;
	if (curr && READ_ONCE(run_to_parity) && protect_slice(ev(curr)))
		return curr;
	saakm_rq_for_each(p, &ec->rq)
		if (vruntime_eligible(ec, ev(p)->vruntime)) {
			best = p;
			break;
		}
	if (!best || (curr && deadline_before(curr, best)))
		best = curr;
	return best ?: first;	/* someone is always eligible; be safe */
}

/* PREEMPT_SHORT at a wakeup: a shorter, eligible request may cut in. */
static bool do_preempt_short(struct eevdf_cpu *ec, struct eevdf_task *pse,
			     struct eevdf_task *se)
{
	if (pse->slice >= se->slice || !vruntime_eligible(ec, pse->vruntime))
		return false;
	return (s64)(pse->deadline - se->deadline) < 0 ||
	       !vruntime_eligible(ec, se->vruntime);
}

/*
 * The starvation guard, at the tick: the oldest waiting task, once it waited
 * starve_ms. The time is read only here, not at each wakeup (a hot path): a
 * wait counts from the first tick that sees it.
 */
static struct task_struct *starving(struct saakm_policy *pol, struct eevdf_cpu *ec)
{
	unsigned int ms = READ_ONCE(starve_ms);
	struct eevdf_task *t;
	u64 now;

	if (!ms || list_empty(&ec->waiting))
		return NULL;
	now = saakm_clock_ns(pol);
	list_for_each_entry_reverse(t, &ec->waiting, wait_node) {
		if (t->queued_at)
			break;
		t->queued_at = now;
	}
	t = list_first_entry(&ec->waiting, struct eevdf_task, wait_node);
	return now - t->queued_at < (u64)ms * NSEC_PER_MSEC ? NULL : t->task;
}

/*
 * A new weight keeps the lag w_i * (V - v_i) and the real time left to the
 * deadline: both virtual distances scale by old / new weight, V stays
 * (reweight_eevdf()). @ec: @t's CPU, or NULL: then its saved lag scales.
 */
static void reweight(struct eevdf_cpu *ec, struct eevdf_task *t)
{
	unsigned int old = t->weight, new = t->new_weight;
	u64 avruntime;

	if (old == new)
		return;
	if (!ec) {
		t->vlag = div64_s64(t->vlag * old, new);
	} else {
		avruntime = avg_vruntime(ec);
		if (avruntime != t->vruntime)
			t->vruntime = avruntime -
				      div64_s64(entity_lag(avruntime, t) * old, new);
		t->deadline = avruntime +
			      div64_s64((s64)(t->deadline - avruntime) * old, new);
		set_load(ec, (long)new - (long)old);
	}
	t->weight = new;
}

/*
 * Put @t at V minus its lag (PLACE_LAG). Adding a task with lag vl moves V
 * by w_i * vl / (W + w_i), so the lag is inflated by (W + w_i) / W first
 * and comes out as it was saved. A moved task keeps its deadline relative
 * to its vruntime (PLACE_REL_DEADLINE); a new one asks for half a slice
 * (PLACE_DEADLINE_INITIAL: the others are half-way through theirs).
 */
static void place_entity(struct eevdf_cpu *ec, struct eevdf_task *t, bool initial)
{
	u64 vslice, vruntime = avg_vruntime(ec);
	s64 lag = 0, load;

	if (!t->custom_slice)
		t->slice = base_slice_ns();
	vslice = calc_delta_fair(t->slice, t);
	if (ec->curr || saakm_rq_len(&ec->rq)) {
		load = ec->avg_load + (ec->curr ? ev(ec->curr)->weight : 0);
		lag = div64_s64(t->vlag * (load + t->weight), load);
	}
	t->vruntime = vruntime - lag;
	if (t->rel_deadline) {
		t->deadline += t->vruntime;
		t->rel_deadline = false;
		return;
	}
	if (initial)
		vslice /= 2;
	t->deadline = t->vruntime + vslice;
}

/* @t starts counting on @cpu (fair.c's enqueue_entity()). */
static void join_cpu(struct eevdf_cpu *ec, struct eevdf_task *t, int cpu, bool initial)
{
	place_entity(ec, t, initial);
	t->cpu = cpu;
	set_load(ec, t->weight);
}

/* @p waits on @cpu: in the sums, the list of waiters and the runqueue. */
static void enqueue(struct eevdf_cpu *ec, struct task_struct *p, int cpu,
		    enum saakm_task_state state)
{
	struct eevdf_task *t = ev(p);

	avg_update(ec, t, 1);
	t->queued_at = 0;
	list_add_tail(&t->wait_node, &ec->waiting);
	saakm_change_state(p, state, cpu, &ec->rq);
}

/* @t leaves the runqueue (the state change takes it out of the tree). */
static void dequeue(struct eevdf_cpu *ec, struct eevdf_task *t)
{
	avg_update(ec, t, -1);
	list_del_init(&t->wait_node);
	if (ec->starved == t->task)
		ec->starved = NULL;
}

/* @p runs on @cpu (fair.c's set_next_entity()): the sums exclude it now. */
static void set_next(struct eevdf_cpu *ec, struct task_struct *p, int cpu)
{
	struct eevdf_task *t = ev(p);

	dequeue(ec, t);
	saakm_change_state(p, SAAKM_RUNNING, cpu, NULL);
	ec->curr = p;
	reweight(ec, t);
	/* Re-picked right after it was put back: fair.c does not set it again. */
	if (p != ec->prev)
		t->protect = t->deadline;
	ec->prev = NULL;
}

/* The running task waits again (fair.c's put_prev_entity()). */
static void put_prev(struct eevdf_cpu *ec, struct task_struct *p, int cpu,
		     enum saakm_task_state state)
{
	ec->curr = NULL;
	ec->prev = p;
	enqueue(ec, p, cpu, state);
}

/* @p no longer counts on @ec: out of curr or the sums, and of the load. */
static void leave_cpu(struct eevdf_cpu *ec, struct task_struct *p)
{
	struct eevdf_task *t = ev(p);

	if (ec->curr == p)
		ec->curr = NULL;
	else
		dequeue(ec, t);
	if (ec->prev == p)
		ec->prev = NULL;
	set_load(ec, -(long)t->weight);
	t->cpu = -1;
}

/*
 * @p stops counting on its CPU (sleep, class move, balancing): save its lag
 * and, unless it sleeps, its deadline relative to its vruntime, which
 * place_entity() restores on any CPU (dequeue_entity()). Charged already.
 */
static void take_off(struct eevdf_cpu *ec, struct task_struct *p, bool sleep)
{
	struct eevdf_task *t = ev(p);

	t->vlag = entity_lag(avg_vruntime(ec), t);
	if (!sleep) {
		t->deadline -= t->vruntime;
		t->rel_deadline = true;
	}
	leave_cpu(ec, p);
	reweight(NULL, t);
}

/* An allowed online CPU with no task of ours, @first if it is one; or -1. */
static int idle_cpu_for(struct saakm_policy *pol, struct task_struct *p, int first, int skip)
{
	int cpu;

	if (first >= 0 && cpumask_test_cpu(first, p->cpus_ptr) && cpu_online(first) &&
	    !load_of(pol, first))
		return first;
	for_each_cpu_and(cpu, p->cpus_ptr, cpu_online_mask)
		if (cpu != skip && !load_of(pol, cpu))
			return cpu;
	return -1;
}

/* Fork: the allowed online CPU with the least weight, its own on a tie. */
static int eevdf_idlest_cpu(struct saakm_policy *pol, struct task_struct *p)
{
	unsigned long load, best_load = ~0UL;
	int cpu, best = cpumask_first(p->cpus_ptr);	/* none online: the class falls back */

	for_each_cpu_and(cpu, p->cpus_ptr, cpu_online_mask) {
		load = load_of(pol, cpu);
		if (load < best_load || (load == best_load && cpu == task_cpu(p))) {
			best = cpu;
			best_load = load;
		}
	}
	return best;
}

static int eevdf_new_prepare(struct saakm_policy *pol, struct task_struct *p)
{
	struct eevdf_task *t = kzalloc(sizeof(*t), GFP_ATOMIC);

	if (t) {
		t->task = p;
		t->weight = saakm_nice_weight(task_nice(p));
		t->new_weight = t->weight;
		t->slice = base_slice_ns();
		t->cpu = -1;
		t->exec_seen = saakm_exec_ns(p);
		INIT_LIST_HEAD(&t->wait_node);
		*saakm_task_data(p) = t;
	}
	return eevdf_idlest_cpu(pol, p);
}

/* Wakeup: the previous CPU if idle, else an idle one, else the previous one. */
static int eevdf_unblock_prepare(struct saakm_policy *pol, struct task_struct *p)
{
	int prev = task_cpu(p), cpu = idle_cpu_for(pol, p, prev, -1);

	if (cpu < 0 && cpumask_test_cpu(prev, p->cpus_ptr) && cpu_online(prev))
		cpu = prev;
	return cpu >= 0 ? cpu : eevdf_idlest_cpu(pol, p);
}

/*
 * @p joins @cpu's runqueue (enqueue_entity(), check_preempt_wakeup_fair()),
 * the running task charged first. A shorter eligible request cancels its
 * protection (PREEMPT_SHORT); if @p is now the pick, preempt() is asked.
 */
static void eevdf_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct eevdf_cpu *ec = cpu_of(cpu);
	struct eevdf_task *t = ev(p);
	bool kick;

	if (!t) {
		saakm_policy_error(pol, "task %d has no data (out of memory)", p->pid);
		return;
	}
	kick = update_curr(ec);
	/* A new task asks for half a slice: new_place() sees it NOT_QUEUED. */
	join_cpu(ec, t, cpu, saakm_task_state(p) == SAAKM_NOT_QUEUED);
	enqueue(ec, p, cpu, SAAKM_READY);
	if (!ec->curr)
		return;
	if (do_preempt_short(ec, t, ev(ec->curr)))
		cancel_protect_slice(ev(ec->curr));
	if (kick || pick_eevdf(ec) == p)
		saakm_kick_cpu(pol, cpu, SAAKM_KICK_PREEMPT);
}

/* Asleep (it was running) or moved away by the class (it was waiting). */
static void eevdf_block(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct eevdf_cpu *ec = cpu_of(cpu);
	bool sleep = ec->curr == p;

	if (update_curr(ec) && !sleep)
		saakm_kick_cpu(pol, cpu, SAAKM_KICK_PREEMPT);
	if (ev(p) && ev(p)->cpu == cpu)
		take_off(ec, p, sleep);
	saakm_change_state(p, SAAKM_BLOCKED, -1, NULL);
}

/*
 * @t, run out of turn by the guard, starts from V of the others if it is
 * ahead, unprotected. Else each guarded tick adds to a debt never paid (the
 * guard comes back first) that pushes V and all lags up, and the lag above
 * entity_lag()'s bound is lost at each sleep: heavy tasks that sleep often
 * got 30% of their share in a guest (t_mixed_load_busy_guard).
 */
static void forgive_debt(struct eevdf_cpu *ec, struct eevdf_task *t)
{
	s64 debt;

	ec->curr = NULL;		/* @t is curr: take it out of V */
	debt = max((s64)(t->vruntime - avg_vruntime(ec)), (s64)0);
	ec->curr = t->task;
	t->vruntime -= debt;
	t->deadline -= debt;		/* if moved, != protect: unprotected */
}

/*
 * First the guard, then EEVDF. A running task of ours still here was parked
 * by the class: it stops counting until adopt() meets it.
 */
static struct task_struct *eevdf_schedule(struct saakm_policy *pol, int cpu)
{
	struct eevdf_cpu *ec = cpu_of(cpu);
	struct task_struct *p, *starved;

	if (ec->curr) {
		update_curr(ec);
		take_off(ec, ec->curr, true);
	}
	starved = ec->starved;
	p = starved ?: pick_eevdf(ec);
	if (p)
		set_next(ec, p, cpu);
	if (starved)
		forgive_debt(ec, ev(p));
	return p;
}

/*
 * A task may run without schedule(): core scheduling runs a waiting task it
 * picked, a parked one comes back after schedule() stopped counting it. Make
 * @p the running task (placed as woken if uncounted), or if another task of
 * ours is that now, make @p wait in @state.
 */
static bool adopt(struct eevdf_cpu *ec, struct task_struct *p, int cpu,
		  enum saakm_task_state state)
{
	struct eevdf_task *t = ev(p);

	if (ec->curr == p)
		return true;
	if (saakm_task_state(p) != SAAKM_RUNNING ||
	    WARN_ON_ONCE(!t || (t->cpu >= 0 && t->cpu != cpu)))
		return false;
	if (t->cpu == cpu) {
		dequeue(ec, t);		/* the class took it off the runqueue */
	} else {
		update_curr(ec);
		join_cpu(ec, t, cpu, false);
	}
	if (ec->curr) {
		enqueue(ec, p, cpu, state);
		return false;
	}
	ec->curr = p;
	t->protect = t->deadline;
	return true;
}

/*
 * NOHZ kick: tasks wait here while a CPU that may run one has none of ours,
 * maybe idling with its tick stopped: wake it, it pulls in newly_idle().
 * @next, about to run here, does not count. The first few waiters only.
 */
static void kick_idle_cpu(struct saakm_policy *pol, struct eevdf_cpu *ec, int this,
			  struct task_struct *next)
{
	struct task_struct *p;
	int cpu, n = 0;

	saakm_rq_for_each(p, &ec->rq) {
		cpu = p == next ? -1 : idle_cpu_for(pol, p, -1, this);
		if (cpu >= 0) {
			saakm_kick_cpu(pol, cpu, 0);
			return;
		}
		if (++n == EEVDF_KICK_SCAN)
			return;
	}
}

/*
 * The tick charges the running task; it goes back to wait when fair.c would
 * pick another (slice over, or ineligible and unprotected), or one starves.
 */
static void eevdf_tick(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct eevdf_cpu *ec = cpu_of(cpu);
	struct task_struct *next = NULL;

	if (!adopt(ec, p, cpu, SAAKM_READY_TICK))
		return;
	ec->starved = starving(pol, ec);
	if ((update_curr(ec) && pick_eevdf(ec) != p) || ec->starved) {
		put_prev(ec, p, cpu, SAAKM_READY_TICK);
		next = ec->starved ?: pick_eevdf(ec);
	}
	kick_idle_cpu(pol, ec, cpu, next);
}

/* After a wakeup asked for it: preempt if the pick is now another task. */
static void eevdf_preempt(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct eevdf_cpu *ec = cpu_of(cpu);

	if (!adopt(ec, p, cpu, SAAKM_READY_TICK))
		return;
	update_curr(ec);
	if (pick_eevdf(ec) != p)
		put_prev(ec, p, cpu, SAAKM_READY_TICK);
}

/* yield_task_fair(): an eligible task gives up the rest of its request. */
static void eevdf_yield(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct eevdf_cpu *ec = cpu_of(cpu);
	struct eevdf_task *t = ev(p);

	if (!adopt(ec, p, cpu, SAAKM_READY) || !saakm_rq_len(&ec->rq))
		return;		/* alone: keep running */
	update_curr(ec);
	if (vruntime_eligible(ec, t->vruntime)) {
		t->vruntime = t->deadline;
		update_deadline(ec, t);
	}
	put_prev(ec, p, cpu, SAAKM_READY);
}

static void eevdf_terminate(struct saakm_policy *pol, struct task_struct *p)
{
	if (ev(p) && ev(p)->cpu >= 0)
		leave_cpu(cpu_of(ev(p)->cpu), p);
	saakm_change_state(p, SAAKM_TERMINATED, -1, NULL);
}

static void eevdf_free_metadata(struct saakm_policy *pol, struct task_struct *p)
{
	kfree(ev(p));	/* the class clears saakm_task_data() */
}

/* The CPU with the most weight above @dst's that has a task waiting, or -1. */
static int eevdf_busiest(struct saakm_policy *pol, int dst)
{
	unsigned long load, best_load = load_of(pol, dst);
	int cpu, best = -1;

	for_each_online_cpu(cpu) {
		load = cpu == dst ? 0 : load_of(pol, cpu);
		if (load > best_load && saakm_read_cpu(pol, cpu, saakm_rq_len(&cpu_of(cpu)->rq))) {
			best = cpu;
			best_load = load;
		}
	}
	return best;
}

/* @cpu goes idle: pull towards an even split of weight. */
static int eevdf_newly_idle(struct saakm_policy *pol, int cpu)
{
	cpu_of(cpu)->may_swap = false;
	return eevdf_busiest(pol, cpu);
}

/* Every balance_ms: the same, and a difference of one task swaps roles. */
static int eevdf_balancing_select(struct saakm_policy *pol, int cpu)
{
	WRITE_ONCE(cpu_of(cpu)->may_swap, true);
	return eevdf_busiest(pol, cpu);
}

/*
 * A swap moves @p and leaves a task alone on @from, which the one @p joins
 * on @to had until now: fair if it was served no more, per weight. Without
 * this, when both CPUs balance in the same tick, the second undoes the
 * first's swap, and one of 3 equal hogs keeps a CPU to itself. Service is
 * counted from the task's start: one that slept long is left alone first.
 */
static bool swap_is_fair(struct eevdf_cpu *from, struct eevdf_cpu *to, struct task_struct *p)
{
	struct task_struct *r = from->curr != p ? from->curr : NULL, *q;
	struct task_struct *d = to->curr ?: saakm_rq_first(&to->rq);

	saakm_rq_for_each(q, &from->rq)
		if (!r && q != p)
			r = q;
	return !r || !d || div_u64(saakm_exec_ns(r), ev(r)->weight) <=
			   div_u64(saakm_exec_ns(d), ev(d)->weight);
}

/*
 * Hand over the earliest-deadline waiting task that may run on @dst and
 * weighs less than the weight difference (in a periodic balance, a first
 * one of exactly the difference swaps the CPUs' roles, see the top of the
 * file). Lag and relative deadline go with it.
 */
static struct task_struct *eevdf_balance_pick(struct saakm_policy *pol, int src, int dst)
{
	struct eevdf_cpu *from = cpu_of(src), *to = cpu_of(dst);
	long diff = (long)from->load - (long)to->load;
	struct task_struct *p;

	saakm_rq_for_each(p, &from->rq)
		if ((ev(p)->weight < diff || (ev(p)->weight == diff && to->may_swap &&
					      swap_is_fair(from, to, p))) &&
		    saakm_can_migrate(p, dst))
			break;
	if (!p)
		return NULL;
	to->may_swap = false;
	if (update_curr(from))
		saakm_kick_cpu(pol, src, SAAKM_KICK_PREEMPT);
	take_off(from, p, false);
	saakm_change_state(p, SAAKM_MIGRATING, -1, NULL);
	return p;
}

/* Refuse what fair.c would not take: a blob, a nice value out of range. */
static int eevdf_checkparam_attr(struct saakm_policy *pol, struct task_struct *p,
				 const struct saakm_attr *attr)
{
	return attr->size || attr->nice < MIN_NICE || attr->nice > MAX_NICE ? -EINVAL : 0;
}

/*
 * nice and sched_runtime: the slice is clamped as fair.c does and used from
 * the next request on; the weight changes at once, except for a waiting
 * task, whose deadline keys the runqueue: it changes when it leaves it.
 */
static void eevdf_setparam_attr(struct saakm_policy *pol, struct task_struct *p,
				const struct saakm_attr *attr)
{
	struct eevdf_task *t = ev(p);
	struct eevdf_cpu *ec;

	if (!t)
		return;
	t->custom_slice = attr->runtime != 0;
	t->slice = t->custom_slice ? clamp(attr->runtime, EEVDF_MIN_SLICE_NS,
					   EEVDF_MAX_SLICE_NS) : base_slice_ns();
	t->new_weight = saakm_nice_weight(attr->nice);
	if (t->cpu < 0) {
		reweight(NULL, t);
		return;
	}
	ec = cpu_of(t->cpu);
	if (ec->curr == p) {
		update_curr(ec);
		reweight(ec, t);
	}
}

static struct saakm_ops eevdf_ops = {
	.name		= "eevdf",
	.new_prepare	= eevdf_new_prepare,
	.new_place	= eevdf_place,
	.unblock_prepare = eevdf_unblock_prepare,
	.unblock_place	= eevdf_place,
	.block		= eevdf_block,
	.yield		= eevdf_yield,
	.tick		= eevdf_tick,
	.preempt	= eevdf_preempt,
	.terminate	= eevdf_terminate,
	.schedule	= eevdf_schedule,
	.newly_idle	= eevdf_newly_idle,
	.balancing_select = eevdf_balancing_select,
	.balance_pick	= eevdf_balance_pick,
	.free_metadata	= eevdf_free_metadata,
	.checkparam_attr = eevdf_checkparam_attr,
	.setparam_attr	= eevdf_setparam_attr,
	.balance_max	= EEVDF_BALANCE_MAX,
};

static struct saakm_policy *eevdf;

static int __init eevdf_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct eevdf_cpu *ec = cpu_of(cpu);

		saakm_rq_init(&ec->rq, SAAKM_RQ_RBTREE, deadline_before, cpu);
		INIT_LIST_HEAD(&ec->waiting);
		/* As fair.c: start near the wrap, so that signed arithmetic is tested. */
		ec->zero_vruntime = (u64)(-(1LL << 20));
	}
	eevdf_ops.balance_ms = balance_ms;
	if (!eevdf_ops.balance_ms)
		eevdf_ops.balancing_select = NULL;
	eevdf = saakm_register_policy(&eevdf_ops, NULL);
	return PTR_ERR_OR_ZERO(eevdf);
}

static void __exit eevdf_exit(void)
{
	saakm_unregister_policy(eevdf);
}
module_init(eevdf_init);
module_exit(eevdf_exit);
MODULE_DESCRIPTION("SaaKM EEVDF policy: a port of Linux 6.12's fair.c EEVDF");
MODULE_LICENSE("GPL");
