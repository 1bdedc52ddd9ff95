// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_wfq: weighted fair queuing per CPU, balanced by weighted load.
 *
 * A task's virtual runtime (vruntime) is its CPU time times 1024 / its
 * weight, the fair class's weight of its nice value (1024 at nice 0, 335 at
 * nice 5). Each CPU runs the leftmost task of an rbtree ordered by
 * vruntime, the one furthest behind its share. At a tick, the running task
 * gives way once it has run slice_ms if a waiting task has not run more. A
 * task is placed at max(vruntime, min_vruntime - one slice of its own time):
 * a long sleeper gets that much credit, not its whole sleep. A woken task
 * more than wakeup_gran_us behind the running one kicks the CPU, and
 * preempt() decides. A task that waited max_wait_ms runs next, whatever
 * its weight. Balancing evens the CPUs' loads (sums of weights), up to
 * balance_max tasks at a time: every balance_ms, when a CPU goes idle, and
 * when a busy CPU's tick kicks an idle one (so that CPUs idling with the
 * tick stopped pull too).
 *
 * Good at: CPU shares by nice value; sleepers run soon; no CPU idles while
 * tasks wait. Bad at: latency below the tick; caches and topology (any task
 * moves anywhere); cgroups; shares at extreme nice ratios (max_wait_ms).
 *
 * Parameters, refused out of range: slice_ms (1..100, default 3: 6.12's
 * 0.75 ms base slice scaled by 1 + log2(8 CPUs)), wakeup_gran_us (0..100000,
 * default 1000 as in CFS), balance_ms (1..1000, default 32: CFS balances
 * busy CPUs every few ms times 16), balance_max (1..64, default 8),
 * max_wait_ms (10..10000, default 1000, well under the class's 5 s stall
 * timeout); balance_* at load time only.
 */
#include <linux/saakm.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/slab.h>

/* An unsigned module parameter and its allowed range. */
struct wfq_param {
	unsigned int val, min, max;
};

/* Refuse a value out of range, at load time and through sysfs alike. */
static int wfq_param_set(const char *arg, const struct kernel_param *kp)
{
	struct wfq_param *param = container_of((unsigned int *)kp->arg,
					       struct wfq_param, val);
	unsigned int v;

	if (kstrtouint(arg, 0, &v) || v < param->min || v > param->max) {
		pr_err("saakm_wfq: %s must be an integer in %u..%u\n",
		       kp->name, param->min, param->max);
		return -EINVAL;
	}
	WRITE_ONCE(param->val, v);
	return 0;
}

static const struct kernel_param_ops wfq_param_ops = {
	.set = wfq_param_set,
	.get = param_get_uint,
};

#define WFQ_PARAM(name, def, lo, hi, perm, desc)			\
	static struct wfq_param name = { def, lo, hi };			\
	module_param_cb(name, &wfq_param_ops, &name.val, perm);		\
	MODULE_PARM_DESC(name, desc " (" #lo ".." #hi ", default " #def ")")

WFQ_PARAM(slice_ms, 3, 1, 100, 0644, "time slice, ms");
WFQ_PARAM(wakeup_gran_us, 1000, 0, 100000, 0644, "vruntime lead to preempt at wakeup, us");
WFQ_PARAM(balance_ms, 32, 1, 1000, 0444, "period of load balancing, ms");
WFQ_PARAM(balance_max, 8, 1, 64, 0444, "tasks one balance may move");
WFQ_PARAM(max_wait_ms, 1000, 10, 10000, 0644, "a task waiting longer runs next, ms");

/* Per CPU, under rq(cpu); load and min_vruntime are also read unlocked. */
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
	u64 exec_seen;		/* p->se.sum_exec_runtime already charged */
	unsigned int weight;
	int cpu;		/* CPU of its min_vruntime frame; -1: new */
	bool counted;		/* its weight is in that CPU's load */
	bool moved;		/* balanced, has not run since */
};

static DEFINE_PER_CPU(struct wfq_cpu, wfq_cpus);
static struct cpumask wfq_idle;		/* CPUs running their idle task */
static struct saakm_policy *wfq;

static struct wfq_cpu *wfq_cpu(int cpu)
{
	return per_cpu_ptr(&wfq_cpus, cpu);
}

static struct wfq_task *wt(struct task_struct *p)
{
	return *saakm_task_data(p);
}

/* A parameter's value in ns of vruntime at @weight (1024: real time). */
static s64 param_ns(struct wfq_param *param, u64 unit, unsigned long weight)
{
	return div64_u64(READ_ONCE(param->val) * unit * 1024, weight);
}

/* How far @p is behind @curr in vruntime (negative: ahead; wrapping is fine). */
static s64 lead(struct task_struct *p, struct task_struct *curr)
{
	return wt(curr)->vruntime - wt(p)->vruntime;
}

static bool wfq_less(struct task_struct *a, struct task_struct *b)
{
	return lead(a, b) > 0;
}

/* Move min_vruntime up to the lowest vruntime of the CPU's tasks. */
static void update_min(struct wfq_cpu *c)
{
	struct task_struct *first = saakm_rq_first(&c->rq), *low = c->curr;

	if (!low || (first && wfq_less(first, low)))
		low = first;
	if (low && (s64)(wt(low)->vruntime - c->min_vruntime) > 0)
		WRITE_ONCE(c->min_vruntime, wt(low)->vruntime);
}

/*
 * Add the CPU time @p used since it was last charged, weighted. It is read
 * from sum_exec_runtime, not saakm_running_ns(), which restarts with each
 * run: the bit a task runs after its last tick would be lost, and since it
 * weighs more for a light task, light tasks would get more than their share.
 */
static void charge(struct wfq_cpu *c, struct task_struct *p)
{
	struct wfq_task *t = wt(p);
	u64 ran = p->se.sum_exec_runtime - t->exec_seen, delta;

	t->exec_seen = p->se.sum_exec_runtime;
	c->clock += ran;
	delta = mul_u64_u32_div(ran, 1024, t->weight);
	t->vruntime += delta;
	t->service += delta;
	update_min(c);
}

/* Add @p's weight to its CPU's load, or take it out. */
static void account(struct task_struct *p, bool add)
{
	struct wfq_task *t = wt(p);
	struct wfq_cpu *c;

	if (t->counted == add)
		return;
	c = wfq_cpu(t->cpu);
	t->counted = add;
	WRITE_ONCE(c->load, add ? c->load + t->weight : c->load - t->weight);
}

/* @p waits on @cpu (READY or READY_TICK): in the tree, and in arrival order. */
static void to_wait(struct task_struct *p, int cpu, enum saakm_task_state state)
{
	struct wfq_cpu *c = wfq_cpu(cpu);

	wt(p)->ready_at = c->clock;
	list_add_tail(&wt(p)->node, &c->waiting);
	saakm_change_state(p, state, cpu, &c->rq);
}

/*
 * new_place: put @p in @cpu's tree. New tasks start at min_vruntime; a task
 * from another CPU keeps its distance to min_vruntime (vruntimes of two CPUs
 * are not comparable); no task starts more than a slice behind it.
 */
static void wfq_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct wfq_cpu *c = wfq_cpu(cpu);
	struct wfq_task *t = wt(p);
	u64 floor = c->min_vruntime - param_ns(&slice_ms, NSEC_PER_MSEC, t->weight);

	if (t->cpu < 0)
		t->vruntime = c->min_vruntime;
	else if (t->cpu != cpu)	/* the old CPU's min read unlocked: a hint */
		t->vruntime += c->min_vruntime - READ_ONCE(wfq_cpu(t->cpu)->min_vruntime);
	if ((s64)(floor - t->vruntime) > 0)
		t->vruntime = floor;
	t->cpu = cpu;
	account(p, true);
	to_wait(p, cpu, SAAKM_READY);
	update_min(c);
}

/* A wakeup (or a move): place, then ask for the CPU if @p is far behind. */
static void wfq_unblock_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct wfq_cpu *c = wfq_cpu(cpu);

	wfq_place(pol, p, cpu);
	if (!c->curr)
		return;
	charge(c, c->curr);	/* its clock may lag: preempt() checks again */
	if (lead(p, c->curr) > param_ns(&wakeup_gran_us, NSEC_PER_USEC, wt(p)->weight))
		saakm_kick_cpu(pol, cpu, SAAKM_KICK_PREEMPT);
}

/* unblock_prepare: its last CPU (its cache) unless that is busy and one idles. */
static int wfq_select_cpu(struct saakm_policy *pol, struct task_struct *p)
{
	unsigned int idle = cpumask_first_and(&wfq_idle, p->cpus_ptr);
	int prev = task_cpu(p);

	if (cpumask_test_cpu(prev, p->cpus_ptr) &&
	    (idle >= nr_cpu_ids || cpumask_test_cpu(prev, &wfq_idle)))
		return prev;
	return idle < nr_cpu_ids ? idle : cpumask_any(p->cpus_ptr);
}

static int wfq_new_prepare(struct saakm_policy *pol, struct task_struct *p)
{
	struct wfq_task *t = kzalloc(sizeof(*t), GFP_ATOMIC);

	if (!t) {
		saakm_policy_error(pol, "no memory for task %d", p->pid);
		return task_cpu(p);
	}
	t->weight = saakm_nice_weight(task_nice(p));
	t->cpu = -1;
	t->p = p;
	t->exec_seen = p->se.sum_exec_runtime;
	INIT_LIST_HEAD(&t->node);
	*saakm_task_data(p) = t;
	return wfq_select_cpu(pol, p);
}

/*
 * The task that waited longer than max_wait_ms of this CPU's time, if any:
 * weights as far apart as nice -20 and 19 would make a task wait for
 * seconds, which the class's watchdog takes for a stall.
 */
static struct task_struct *starving(struct wfq_cpu *c)
{
	struct wfq_task *old = list_first_entry_or_null(&c->waiting, struct wfq_task, node);

	if (old && c->clock - old->ready_at > param_ns(&max_wait_ms, NSEC_PER_MSEC, 1024))
		return old->p;
	return NULL;
}

/* The leftmost task, or a starving one. */
static struct task_struct *wfq_schedule(struct saakm_policy *pol, int cpu)
{
	struct wfq_cpu *c = wfq_cpu(cpu);
	struct task_struct *p = starving(c) ?: saakm_rq_first(&c->rq);

	if (!p)
		return NULL;
	list_del_init(&wt(p)->node);
	saakm_change_state(p, SAAKM_RUNNING, cpu, NULL);
	c->curr = p;
	wt(p)->moved = false;
	update_min(c);
	return p;
}

/* @p stops running on @cpu (if it ran): charge it. */
static void stop(struct task_struct *p, int cpu)
{
	struct wfq_cpu *c = wfq_cpu(cpu);

	if (c->curr == p) {
		charge(c, p);
		c->curr = NULL;
	}
}

/* @p stops running on @cpu but stays runnable: back in the tree. */
static void requeue(struct task_struct *p, int cpu, enum saakm_task_state state)
{
	stop(p, cpu);
	to_wait(p, cpu, state);
}

/* Also called for a READY task that the class moves to another CPU. */
static void wfq_block(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	stop(p, cpu);
	list_del_init(&wt(p)->node);
	account(p, false);
	saakm_change_state(p, SAAKM_BLOCKED, -1, NULL);
}

static void wfq_yield(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	requeue(p, cpu, SAAKM_READY);
}

/* @p runs on @cpu: bring its vruntime up to date; return the leftmost task. */
static struct task_struct *update_curr(struct task_struct *p, int cpu)
{
	struct wfq_cpu *c = wfq_cpu(cpu);

	c->curr = p;	/* also if the class started it without schedule() */
	charge(c, p);
	return saakm_rq_first(&c->rq);
}

/* After its slice, @p gives way to a task that has not run more, or starves. */
static void wfq_tick(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct task_struct *first = update_curr(p, cpu);
	unsigned int idle = cpumask_any_but(&wfq_idle, cpu);

	if (!first)
		return;
	/* NOHZ balancing: tasks wait here, so wake an idle CPU: it will pull */
	if (idle < nr_cpu_ids)
		saakm_kick_cpu(pol, idle, 0);
	if (saakm_running_ns(p) >= param_ns(&slice_ms, NSEC_PER_MSEC, 1024) &&
	    (lead(first, p) >= 0 || starving(wfq_cpu(cpu))))
		requeue(p, cpu, SAAKM_READY_TICK);
}

/* A wakeup kicked @cpu (see wfq_unblock_place()): check with fresh figures. */
static void wfq_preempt(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct task_struct *first = update_curr(p, cpu);

	if (first && lead(first, p) > param_ns(&wakeup_gran_us, NSEC_PER_USEC, wt(first)->weight))
		requeue(p, cpu, SAAKM_READY_TICK);
}

static void wfq_terminate(struct saakm_policy *pol, struct task_struct *p)
{
	stop(p, task_cpu(p));
	if (wt(p)) {
		list_del_init(&wt(p)->node);
		account(p, false);
	}
	saakm_change_state(p, SAAKM_TERMINATED, -1, NULL);
}

static void wfq_free_metadata(struct saakm_policy *pol, struct task_struct *p)
{
	kfree(wt(p));
	*saakm_task_data(p) = NULL;
}

/*
 * newly_idle, balancing_select: the busiest CPU with a task waiting, if more
 * loaded than @cpu, or -1. Unlocked reads: balance_pick() decides.
 */
static int wfq_busiest(struct saakm_policy *pol, int cpu)
{
	unsigned long load, max = READ_ONCE(wfq_cpu(cpu)->load);
	int other, best = -1;

	for_each_online_cpu(other) {
		load = READ_ONCE(wfq_cpu(other)->load);
		if (load > max && saakm_rq_len(&wfq_cpu(other)->rq)) {
			best = other;
			max = load;
		}
	}
	return best;
}

/* May @p (weight @w) move to @dst, whose load is lower by @diff? */
static bool may_move(struct task_struct *p, long w, long diff, int dst)
{
	struct task_struct *curr = wfq_cpu(dst)->curr;

	if (wt(p)->moved || !saakm_can_migrate(p, dst))
		return false;
	/* an equal swap only to share with a task that had more service */
	return !wfq_cpu(dst)->load || w < diff ||
	       (w == diff && curr && wt(p)->service < wt(curr)->service);
}

/*
 * Both CPUs locked: the waiting task whose move evens the loads best, of
 * weight w < the difference d (any for an idle @dst). At w == d the move
 * swaps the sides: it is how 3 equal tasks on 2 CPUs take turns, the one
 * alone giving way to a task that had less service. A task moves again
 * only after it ran where it went, so two CPUs balancing at once do not
 * bounce it. Called again after each move (up to balance_max).
 */
static struct task_struct *wfq_balance_pick(struct saakm_policy *pol, int src, int dst)
{
	long diff = (long)wfq_cpu(src)->load - (long)wfq_cpu(dst)->load;
	long w, gap, best_gap = 0;
	struct task_struct *p, *best = NULL;

	saakm_rq_for_each(p, &wfq_cpu(src)->rq) {
		w = wt(p)->weight;
		if (!may_move(p, w, diff, dst))
			continue;
		gap = diff > 2 * w ? diff - 2 * w : 2 * w - diff;
		if (!best || gap < best_gap) {
			best = p;
			best_gap = gap;
		}
	}
	if (best) {
		wt(best)->moved = true;
		list_del_init(&wt(best)->node);
		account(best, false);
		saakm_change_state(best, SAAKM_MIGRATING, -1, NULL);
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
	if (attr->size || attr->nice < MIN_NICE || attr->nice > MAX_NICE)
		return -EINVAL;
	return 0;
}

/* A new weight applies from now on: charge the running part at the old one. */
static void wfq_setparam_attr(struct saakm_policy *pol, struct task_struct *p,
			      const struct saakm_attr *attr)
{
	struct wfq_task *t = wt(p);
	bool counted = t && t->counted;

	if (!t)
		return;
	if (saakm_task_state(p) == SAAKM_RUNNING)
		charge(wfq_cpu(task_cpu(p)), p);
	account(p, false);
	t->weight = saakm_nice_weight(attr->nice);
	if (counted)
		account(p, true);
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
	wfq_ops.balance_ms = balance_ms.val;
	wfq_ops.balance_max = balance_max.val;
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
