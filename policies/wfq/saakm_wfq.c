// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_wfq: weighted fair queuing per CPU, balanced by weighted load.
 *
 * A task's vruntime is its CPU time * 1024 / its nice weight (the fair
 * class's: 1024 at nice 0, 335 at nice 5). Each CPU runs its task of lowest
 * vruntime (an rbtree), which gives way after slice_ms to one that has not
 * run more. A task is placed at max(vruntime, min_vruntime - a slice): a
 * sleeper's credit is bounded. A woken task preempts if it is wakeup_gran_us
 * behind, or at all behind when it waits alone; one that waited max_wait_ms
 * runs next. Balancing evens the CPUs' sums of weights (up to balance_max
 * tasks): every balance_ms, when a CPU goes idle, and when a busy CPU's
 * tick kicks an idle, maybe tickless, one.
 *
 * Good at: CPU shares by nice value; sleepers run soon; no CPU idles while
 * tasks wait. Bad at: latency below the tick; caches and topology (any task
 * moves anywhere); cgroups; shares at extreme nice ratios (max_wait_ms).
 */
#include <linux/saakm.h>
#include <linux/math64.h>
#include <linux/slab.h>

SAAKM_PARAM_UINT(slice_ms, 3, 1, 100, 0644, "time slice, ms");	/* 0.75 ms * (1 + log2(8)) */
SAAKM_PARAM_UINT(wakeup_gran_us, 3000, 0, 100000, 0644, "vruntime lead to preempt at wakeup, us");
SAAKM_PARAM_UINT(balance_ms, 32, 1, 1000, 0444, "period of load balancing, ms"); /* CFS: few ms * 16 */
SAAKM_PARAM_UINT(balance_max, 8, 1, 64, 0444, "tasks one balance may move");
SAAKM_PARAM_UINT(max_wait_ms, 1000, 10, 10000, 0644, "a task waiting longer runs next, ms"); /* < 5 s */

/*
 * Per CPU, under rq(cpu). Other CPUs read load, min_vruntime and the idle
 * bit unlocked, as hints, through saakm_read_cpu(): recorded, so that replay
 * serves them back.
 */
struct wfq_cpu {
	struct saakm_rq rq;		/* waiting tasks, by vruntime */
	struct list_head waiting;	/* the same, by time of arrival */
	struct task_struct *curr;	/* our task running here, or NULL */
	u64 min_vruntime;
	u64 clock;			/* ns our tasks ran here */
	unsigned long load;		/* weights of the runnable tasks */
};

struct wfq_task {
	struct task_struct *p;
	struct list_head node;	/* in waiting */
	u64 ready_at;		/* clock when it began to wait */
	u64 vruntime;
	u64 service;		/* weighted CPU time, never renormalised */
	u64 exec_seen;		/* saakm_exec_ns() already charged */
	unsigned int weight;
	int cpu;		/* CPU of its min_vruntime frame; -1: new */
	bool counted;		/* its weight is in that CPU's load */
	bool moved;		/* balanced, has not run since */
};

static DEFINE_PER_CPU(struct wfq_cpu, wfq_cpus);
static struct cpumask wfq_idle;		/* CPUs running their idle task */
static struct saakm_policy *wfq;

#define wfq_cpu(cpu)	per_cpu_ptr(&wfq_cpus, (cpu))
#define wt(p)		((struct wfq_task *)*saakm_task_data(p))

/* A parameter's value (@unit ns each) in ns of vruntime at @weight (1024: real time). */
#define param_ns(param, unit, weight)	\
	((s64)div64_u64((u64)READ_ONCE(param) * (unit) * 1024, (weight)))
/* How far @p is behind @curr in vruntime (negative: ahead; wrapping is fine). */
#define lead(p, curr)	((s64)(wt(curr)->vruntime - wt(p)->vruntime))
/* Does @p, waiting on @c, take the CPU from @curr? Granularity is against crowds. */
#define wins(c, p, curr)	(lead(p, curr) > (list_is_singular(&(c)->waiting) ? 0 :	\
				 param_ns(wakeup_gran_us, NSEC_PER_USEC, wt(p)->weight)))

static bool wfq_less(struct task_struct *a, struct task_struct *b)
{
	return lead(a, b) > 0;
}

/* min_vruntime of @c, brought up to date: at placements and ticks, not at every charge. */
static u64 update_min(struct wfq_cpu *c)
{
	struct task_struct *first = saakm_rq_first(&c->rq), *low = c->curr;

	if (!low || (first && wfq_less(first, low)))
		low = first;
	if (low && (s64)(wt(low)->vruntime - c->min_vruntime) > 0)
		WRITE_ONCE(c->min_vruntime, wt(low)->vruntime);
	return c->min_vruntime;
}

/* Add @p's CPU time since its last charge, weighted (saakm_running_ns() restarts each run). */
static void charge(struct wfq_cpu *c, struct task_struct *p)
{
	struct wfq_task *t = wt(p);
	u64 ran = saakm_exec_ns(p) - t->exec_seen, delta;

	t->exec_seen += ran;
	c->clock += ran;
	delta = mul_u64_u32_div(ran, 1024, t->weight);
	t->vruntime += delta;
	t->service += delta;
}

static void account(struct task_struct *p, bool add)
{
	struct wfq_task *t = wt(p);

	if (t->counted == add)
		return;
	t->counted = add;
	WRITE_ONCE(wfq_cpu(t->cpu)->load,
		   wfq_cpu(t->cpu)->load + (add ? (long)t->weight : -(long)t->weight));
}

/* READY or READY_TICK: in the tree, and in arrival order for starving(). */
static void to_wait(struct task_struct *p, int cpu, enum saakm_task_state state)
{
	wt(p)->ready_at = wfq_cpu(cpu)->clock;
	list_add_tail(&wt(p)->node, &wfq_cpu(cpu)->waiting);
	saakm_change_state(p, state, cpu, &wfq_cpu(cpu)->rq);
	update_min(wfq_cpu(cpu));
}

/* new_place; a task from another CPU keeps its distance to min_vruntime. */
static void wfq_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct wfq_cpu *c = wfq_cpu(cpu);
	struct wfq_task *t = wt(p);
	u64 floor = update_min(c) - param_ns(slice_ms, NSEC_PER_MSEC, t->weight);

	if (t->cpu < 0)
		t->vruntime = c->min_vruntime;
	else if (t->cpu != cpu)	/* the old CPU's min read unlocked: a hint */
		t->vruntime += c->min_vruntime -
			       saakm_read_cpu(pol, t->cpu, READ_ONCE(wfq_cpu(t->cpu)->min_vruntime));
	if ((s64)(floor - t->vruntime) > 0)
		t->vruntime = floor;
	t->cpu = cpu;
	account(p, true);
	to_wait(p, cpu, SAAKM_READY);
}

/* A wakeup (or a move): place, then ask for the CPU if @p is far behind. */
static void wfq_unblock_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct task_struct *curr = wfq_cpu(cpu)->curr;

	if (curr)	/* its clock may lag: preempt() checks again */
		charge(wfq_cpu(cpu), curr);
	wfq_place(pol, p, cpu);
	if (curr && wins(wfq_cpu(cpu), p, curr))
		saakm_kick_cpu(pol, cpu, SAAKM_KICK_PREEMPT);
}

/* Does @cpu idle? Read unlocked, and not for a kick only: through saakm_read_cpu(). */
#define idles(pol, cpu)	saakm_read_cpu(pol, cpu, cpumask_test_cpu(cpu, &wfq_idle))

/* unblock_prepare: its last CPU (its cache) unless that is busy and one idles. */
static int wfq_select_cpu(struct saakm_policy *pol, struct task_struct *p)
{
	int prev = task_cpu(p), cpu;
	bool allowed = cpumask_test_cpu(prev, p->cpus_ptr);

	if (allowed && idles(pol, prev))
		return prev;
	for_each_cpu(cpu, p->cpus_ptr)
		if (cpu != prev && idles(pol, cpu))
			return cpu;
	return allowed ? prev : cpumask_any(p->cpus_ptr);
}

static int wfq_new_prepare(struct saakm_policy *pol, struct task_struct *p)
{
	struct wfq_task *t = kzalloc(sizeof(*t), GFP_ATOMIC);

	if (!t) {	/* the policy is ejected: no callback will see @p */
		saakm_policy_error(pol, "no memory for task %d", p->pid);
		return task_cpu(p);
	}
	*t = (struct wfq_task){ .p = p, .weight = saakm_nice_weight(task_nice(p)), .cpu = -1,
				.exec_seen = saakm_exec_ns(p) };
	INIT_LIST_HEAD(&t->node);
	*saakm_task_data(p) = t;
	return wfq_select_cpu(pol, p);
}

/* Waited max_wait_ms: at nice -20 vs 19 it would wait for seconds, a stall to the watchdog. */
static struct task_struct *starving(struct wfq_cpu *c)
{
	struct wfq_task *old = list_first_entry_or_null(&c->waiting, struct wfq_task, node);

	return old && c->clock - old->ready_at > param_ns(max_wait_ms, NSEC_PER_MSEC, 1024) ?
	       old->p : NULL;
}

/*
 * @p runs: from schedule(), or a core scheduling pick first seen in tick().
 * So @cpu is not idle, whatever core_entry() assumed: a CPU busy with
 * another class when we loaded goes from it to ours without exit_idle().
 */
static struct task_struct *run(struct task_struct *p, int cpu)
{
	if (unlikely(cpumask_test_cpu(cpu, &wfq_idle)))
		cpumask_clear_cpu(cpu, &wfq_idle);
	list_del_init(&wt(p)->node);
	wt(p)->moved = false;
	wfq_cpu(cpu)->curr = p;
	charge(wfq_cpu(cpu), p);
	return saakm_rq_first(&wfq_cpu(cpu)->rq);
}

static struct task_struct *wfq_schedule(struct saakm_policy *pol, int cpu)
{
	struct task_struct *p = starving(wfq_cpu(cpu)) ?: saakm_rq_first(&wfq_cpu(cpu)->rq);

	if (p) {
		saakm_change_state(p, SAAKM_RUNNING, cpu, NULL);
		run(p, cpu);
	}
	return p;
}

/* @p leaves @cpu's CPU (charged) or tree (block(): also a READY task the class moves). */
static void leave(struct task_struct *p, int cpu, enum saakm_task_state state)
{
	if (wfq_cpu(cpu)->curr == p) {
		charge(wfq_cpu(cpu), p);
		wfq_cpu(cpu)->curr = NULL;
	}
	list_del_init(&wt(p)->node);
	if (state == SAAKM_READY || state == SAAKM_READY_TICK) {
		to_wait(p, cpu, state);
		return;
	}
	account(p, false);
	saakm_change_state(p, state, -1, NULL);
}

static void wfq_block(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	leave(p, cpu, SAAKM_BLOCKED);
}

static void wfq_terminate(struct saakm_policy *pol, struct task_struct *p)
{
	leave(p, task_cpu(p), SAAKM_TERMINATED);
}

static void wfq_yield(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	leave(p, cpu, SAAKM_READY);
}

/* After its slice, @p gives way to a task that has not run more, or starves. */
static void wfq_tick(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct task_struct *first = run(p, cpu);
	unsigned int idle = cpumask_any_but(&wfq_idle, cpu);

	update_min(wfq_cpu(cpu));	/* fresh for other CPUs' placements */
	/* NOHZ balancing: tasks wait here, so wake an idle CPU: it will pull */
	if (first && idle < nr_cpu_ids)
		saakm_kick_cpu(pol, idle, 0);
	if (first && saakm_running_ns(p) >= param_ns(slice_ms, NSEC_PER_MSEC, 1024) &&
	    (lead(first, p) >= 0 || starving(wfq_cpu(cpu))))
		leave(p, cpu, SAAKM_READY_TICK);
}

/* A wakeup kicked @cpu (see wfq_unblock_place()): check with fresh figures. */
static void wfq_preempt(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct task_struct *first = run(p, cpu);

	if (first && wins(wfq_cpu(cpu), first, p))
		leave(p, cpu, SAAKM_READY_TICK);
}

static void wfq_free_metadata(struct saakm_policy *pol, struct task_struct *p)
{
	kfree(wt(p));	/* the class clears saakm_task_data() */
}

/* newly_idle, balancing_select: the busiest CPU with a task waiting, or -1. */
static int wfq_busiest(struct saakm_policy *pol, int cpu)
{
	unsigned long load, max = saakm_read_cpu(pol, cpu, READ_ONCE(wfq_cpu(cpu)->load));
	int other, best = -1;

	for_each_online_cpu(other) {	/* unlocked: balance_pick() decides */
		if (other == cpu)
			continue;
		load = saakm_read_cpu(pol, other, READ_ONCE(wfq_cpu(other)->load));
		if (load > max && saakm_read_cpu(pol, other, saakm_rq_len(&wfq_cpu(other)->rq))) {
			best = other;
			max = load;
		}
	}
	return best;
}

/*
 * The waiting task whose move evens the loads best, lighter than their
 * difference (any for an idle @dst). An equal one swaps the sides if the task
 * it leaves alone had no more service than @dst's: so 3 equal tasks on 2
 * CPUs take turns, whenever each started. A task moves again only after it
 * ran where it went (no bouncing).
 */
static struct task_struct *wfq_balance_pick(struct saakm_policy *pol, int src, int dst)
{
	long diff = (long)wfq_cpu(src)->load - (long)wfq_cpu(dst)->load, w, gap, best_gap = 0;
	struct task_struct *p, *best = NULL, *curr = wfq_cpu(dst)->curr, *left = wfq_cpu(src)->curr;

	saakm_rq_for_each(p, &wfq_cpu(src)->rq) {
		w = wt(p)->weight;
		if (wt(p)->moved || !saakm_can_migrate(p, dst) ||
		    (wfq_cpu(dst)->load && w > diff) || (wfq_cpu(dst)->load && w == diff &&
		     !(curr && left && wt(left)->service <= wt(curr)->service)))
			continue;
		gap = diff > 2 * w ? diff - 2 * w : 2 * w - diff;
		if (!best || gap < best_gap) {
			best = p;
			best_gap = gap;
		}
	}
	if (best) {
		wt(best)->moved = true;
		leave(best, src, SAAKM_MIGRATING);
	}
	return best;
}

/* Also core_entry: a CPU counts as idle until it says otherwise. */
static void wfq_enter_idle(struct saakm_policy *pol, int cpu)
{
	cpumask_set_cpu(cpu, &wfq_idle);
}

static void wfq_exit_idle(struct saakm_policy *pol, int cpu)
{
	cpumask_clear_cpu(cpu, &wfq_idle);
}

/* WFQ takes no attribute blob; nice is checked by the class, and here. */
static int wfq_checkparam_attr(struct saakm_policy *pol, struct task_struct *p,
			       const struct saakm_attr *attr)
{
	return attr->size || attr->nice < MIN_NICE || attr->nice > MAX_NICE ? -EINVAL : 0;
}

/* A new weight applies from now on: charge the running part at the old one. */
static void wfq_setparam_attr(struct saakm_policy *pol, struct task_struct *p,
			      const struct saakm_attr *attr)
{
	bool counted = wt(p)->counted;

	if (saakm_task_state(p) == SAAKM_RUNNING)
		charge(wfq_cpu(task_cpu(p)), p);
	account(p, false);
	wt(p)->weight = saakm_nice_weight(attr->nice);
	account(p, counted);
}

static struct saakm_ops wfq_ops = {
	.name			= "wfq",
	.new_prepare		= wfq_new_prepare,
	.new_place		= wfq_place,
	.unblock_prepare	= wfq_select_cpu,
	.unblock_place		= wfq_unblock_place,
	.block			= wfq_block,
	.yield			= wfq_yield,
	.tick			= wfq_tick,
	.preempt		= wfq_preempt,
	.terminate		= wfq_terminate,
	.schedule		= wfq_schedule,
	.newly_idle		= wfq_busiest,
	.balancing_select	= wfq_busiest,
	.balance_pick		= wfq_balance_pick,
	.enter_idle		= wfq_enter_idle,
	.exit_idle		= wfq_exit_idle,
	.core_entry		= wfq_enter_idle,
	.core_exit		= wfq_exit_idle,
	.checkparam_attr	= wfq_checkparam_attr,
	.setparam_attr		= wfq_setparam_attr,
	.free_metadata		= wfq_free_metadata,
};

static int __init wfq_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		saakm_rq_init(&wfq_cpu(cpu)->rq, SAAKM_RQ_RBTREE, wfq_less, cpu);
		INIT_LIST_HEAD(&wfq_cpu(cpu)->waiting);
	}
	wfq_ops.balance_ms = balance_ms;
	wfq_ops.balance_max = balance_max;
	wfq = saakm_register_policy(&wfq_ops, NULL);
	return PTR_ERR_OR_ZERO(wfq);
}

static void __exit wfq_exit(void)
{
	saakm_unregister_policy(wfq);
}
module_init(wfq_init);
module_exit(wfq_exit);
MODULE_DESCRIPTION("SaaKM weighted fair queuing policy");
MODULE_LICENSE("GPL");
