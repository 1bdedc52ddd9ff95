// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_usim_selftest: a test policy for libusim itself (tests/policy only,
 * not a policy to use). It exercises what saakm_fifo does not: per-task
 * data allocated in new_prepare() and freed in free_metadata(), ordered
 * runqueues (rbtree or sorted list, by a virtual runtime that grows faster
 * for higher nice values), alloc_percpu() counters, a spinlock, and an
 * hrtimer. Its parameters report back what it saw, so that
 * tests/policy/t_usim_selftest.c can check libusim's services.
 *
 * Parameters: rq_kind (2 rbtree, 1 list), leak (Y: never free task data),
 * timer_ms (period of the hrtimer, 0 none), bad (a contract violation on
 * purpose, see below); read back: timer_fires,
 * picks (sum of the per-CPU pick counters, this_cpu_ptr() on the picking
 * CPU), locked_picks (a total kept under a spinlock).
 */
#include <linux/saakm.h>
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

static unsigned int rq_kind = SAAKM_RQ_RBTREE;
module_param(rq_kind, uint, 0444);
static bool leak;
module_param(leak, bool, 0444);
static unsigned int timer_ms;
module_param(timer_ms, uint, 0444);
static unsigned int timer_fires;
module_param(timer_fires, uint, 0444);
static unsigned long picks;		/* sum of the per-CPU counters */
module_param(picks, ulong, 0444);
static unsigned long locked_picks;	/* counted under st_lock */
module_param(locked_picks, ulong, 0444);
/* Contract violations on purpose, to see libusim catch them: 1 yield()
 * blocks the task (BLOCKED outside block()), 2 block() leaves it RUNNING,
 * 3 tick() calls saakm_policy_error(), 4 schedule() makes two tasks RUNNING. */
static unsigned int bad;
module_param(bad, uint, 0444);

struct st_task {
	u64 vruntime;
	u64 ran_at;	/* saakm_running_ns() base when it last ran */
	int weight;
};

struct st_cpu {
	unsigned long picks;
};

static DEFINE_PER_CPU(struct saakm_rq, st_rq);
static struct st_cpu __percpu *st_stats;
static DEFINE_SPINLOCK(st_lock);
static struct hrtimer st_timer;
static struct saakm_policy *st_pol;

static struct st_task *ts(struct task_struct *p)
{
	return *saakm_task_data(p);
}

static bool st_less(struct task_struct *a, struct task_struct *b)
{
	return ts(a)->vruntime < ts(b)->vruntime;
}

static int st_new_prepare(struct saakm_policy *pol, struct task_struct *p)
{
	struct st_task *t = kzalloc(sizeof(*t), GFP_ATOMIC);

	if (!t) {
		saakm_policy_error(pol, "no memory for task %d", p->pid);
		return task_cpu(p);
	}
	/* nice 0 weighs 40, nice 19 weighs 21, nice -20 weighs 60 */
	t->weight = 40 - task_nice(p);
	*saakm_task_data(p) = t;
	return task_cpu(p);
}

/* A task placed anew starts no earlier than the queue's first: no credit for sleeping. */
static void st_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct saakm_rq *rq = per_cpu_ptr(&st_rq, cpu);
	struct task_struct *first = saakm_rq_first(rq);

	if (first && ts(first)->vruntime > ts(p)->vruntime)
		ts(p)->vruntime = ts(first)->vruntime;
	saakm_change_state(p, SAAKM_READY, cpu, rq);
}

static struct task_struct *st_schedule(struct saakm_policy *pol, int cpu)
{
	struct task_struct *p = saakm_rq_first(per_cpu_ptr(&st_rq, cpu));
	unsigned long flags, sum = 0;
	int other;

	if (!p)
		return NULL;
	saakm_change_state(p, SAAKM_RUNNING, cpu, NULL);
	if (bad == 4 && saakm_rq_first(per_cpu_ptr(&st_rq, cpu)))
		saakm_change_state(saakm_rq_first(per_cpu_ptr(&st_rq, cpu)), SAAKM_RUNNING, cpu, NULL);
	this_cpu_ptr(st_stats)->picks++;
	for_each_possible_cpu(other)
		sum += per_cpu_ptr(st_stats, other)->picks;
	picks = sum;
	spin_lock_irqsave(&st_lock, flags);
	locked_picks++;
	spin_unlock_irqrestore(&st_lock, flags);
	return p;
}

/* Charge the CPU time used since it started running, scaled by weight. */
static void st_charge(struct task_struct *p)
{
	u64 ran = saakm_running_ns(p);

	ts(p)->vruntime += ran * 40 / ts(p)->weight;
}

static void st_block(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	if (saakm_task_state(p) == SAAKM_RUNNING)
		st_charge(p);
	if (bad == 2)
		return;
	saakm_change_state(p, SAAKM_BLOCKED, -1, NULL);
}

static void st_yield(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	st_charge(p);
	saakm_change_state(p, bad == 1 ? SAAKM_BLOCKED : SAAKM_READY, cpu,
			   per_cpu_ptr(&st_rq, cpu));
}

static void st_tick(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	struct task_struct *first = saakm_rq_first(per_cpu_ptr(&st_rq, cpu));

	if (bad == 3)
		saakm_policy_error(pol, "tick of task %d on cpu %d", p->pid, cpu);
	if (first && saakm_running_ns(p) >= 4 * NSEC_PER_MSEC) {
		st_charge(p);
		saakm_change_state(p, SAAKM_READY_TICK, cpu, per_cpu_ptr(&st_rq, cpu));
	}
}

static void st_terminate(struct saakm_policy *pol, struct task_struct *p)
{
	saakm_change_state(p, SAAKM_TERMINATED, -1, NULL);
}

static void st_free_metadata(struct saakm_policy *pol, struct task_struct *p)
{
	if (!leak)
		kfree(ts(p));
	*saakm_task_data(p) = NULL;
}

static void st_setparam(struct saakm_policy *pol, struct task_struct *p,
			const struct saakm_attr *attr)
{
	if (ts(p))
		ts(p)->weight = 40 - attr->nice;
}

static enum hrtimer_restart st_timer_fn(struct hrtimer *timer)
{
	timer_fires++;
	hrtimer_forward_now(timer, ms_to_ktime(timer_ms));
	return HRTIMER_RESTART;
}

static struct saakm_ops st_ops = {
	.name		= "usim_selftest",
	.new_prepare	= st_new_prepare,
	.new_place	= st_place,
	.unblock_place	= st_place,
	.block		= st_block,
	.yield		= st_yield,
	.tick		= st_tick,
	.terminate	= st_terminate,
	.schedule	= st_schedule,
	.free_metadata	= st_free_metadata,
	.setparam_attr	= st_setparam,
};

static int __init st_init(void)
{
	int cpu;

	if (rq_kind != SAAKM_RQ_RBTREE && rq_kind != SAAKM_RQ_LIST)
		return -EINVAL;
	st_stats = alloc_percpu(struct st_cpu);
	if (!st_stats)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		saakm_rq_init(per_cpu_ptr(&st_rq, cpu), rq_kind, st_less, cpu);
	st_pol = saakm_register_policy(&st_ops, NULL);
	if (IS_ERR(st_pol)) {
		free_percpu(st_stats);
		return PTR_ERR(st_pol);
	}
	if (timer_ms) {
		hrtimer_init(&st_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		st_timer.function = st_timer_fn;
		hrtimer_start(&st_timer, ms_to_ktime(timer_ms), HRTIMER_MODE_REL);
	}
	return 0;
}

static void __exit st_exit(void)
{
	if (timer_ms)
		hrtimer_cancel(&st_timer);
	saakm_unregister_policy(st_pol);
	free_percpu(st_stats);
}
module_init(st_init);
module_exit(st_exit);
MODULE_DESCRIPTION("libusim self-test policy (tests only)");
MODULE_LICENSE("GPL");
