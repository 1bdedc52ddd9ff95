// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_usim_selftest: a test policy for libusim itself (tests/policy only,
 * not a policy to use). It exercises what saakm_fifo does not: per-task
 * data allocated in new_prepare() and freed in free_metadata(), ordered
 * runqueues (rbtree or sorted list, by a virtual runtime that grows faster
 * for higher nice values), alloc_percpu() counters, a spinlock, an
 * hrtimer, per-CPU pinned hrtimers that preempt through saakm_kick_cpu()
 * and preempt(), a module_param_cb() parameter validated by its .set, and
 * <linux/math64.h>. Its parameters report back what it saw, so that
 * tests/policy/t_usim_selftest.c can check libusim's services.
 *
 * Parameters: rq_kind (2 rbtree, 1 list), leak (Y: never free task data),
 * timer_ms (period of the hrtimer, 0 none), bad (a contract violation on
 * purpose, see below); read back: timer_fires,
 * picks (sum of the per-CPU pick counters, this_cpu_ptr() on the picking
 * CPU), locked_picks (a total kept under a spinlock). kick_us (0, or
 * 10..100000 µs, validated at load and at write): a pinned per-CPU hrtimer
 * started by schedule() kicks its CPU with SAAKM_KICK_PREEMPT after that
 * long, and preempt() preempts if someone waits; read back: kick_fires,
 * kick_wrong_cpu (fired on another CPU than its own), preempts (preempt()
 * calls), last_runtime and last_size (attr->runtime, attr->size of the
 * last setparam_attr()).
 */
#include <linux/saakm.h>
#include <linux/hrtimer.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
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
 * 3 tick() calls saakm_policy_error(), 4 schedule() makes two tasks RUNNING.
 */
static unsigned int bad;
module_param(bad, uint, 0444);
static unsigned int kick_fires, kick_wrong_cpu, preempts;
module_param(kick_fires, uint, 0444);
module_param(kick_wrong_cpu, uint, 0444);
module_param(preempts, uint, 0444);
static unsigned long long last_runtime;
module_param(last_runtime, ullong, 0444);
static unsigned int last_size;		/* attr->size of the last setparam_attr() */
module_param(last_size, uint, 0444);

static unsigned int kick_us;

/* kick_us: refused unless 0 or 10..100000, at load and at every write. */
static int kick_us_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v && (v < 10 || v > 100000)) {
		pr_err("usim_selftest: kick_us=%u: must be 0 or 10..100000\n", v);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops kick_us_ops = {
	.set = kick_us_set,
	.get = param_get_uint,
};
module_param_cb(kick_us, &kick_us_ops, &kick_us, 0644);

struct st_task {
	u64 vruntime;
	u64 ran_at;	/* saakm_running_ns() base when it last ran */
	int weight;
};

struct st_cpu {
	unsigned long picks;
	struct hrtimer kick_timer;	/* pinned: fires on @cpu */
	int cpu;
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
	if (READ_ONCE(kick_us))
		hrtimer_start_range_ns(&this_cpu_ptr(st_stats)->kick_timer,
				       ns_to_ktime(READ_ONCE(kick_us) * NSEC_PER_USEC), 0,
				       HRTIMER_MODE_REL_PINNED_HARD);
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

	ts(p)->vruntime += div_u64(ran * 40, ts(p)->weight);
}

static void st_block(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	if (saakm_task_state(p) == SAAKM_RUNNING) {
		st_charge(p);
		hrtimer_try_to_cancel(&per_cpu_ptr(st_stats, cpu)->kick_timer);
	}
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

/* The kick of the CPU's timer: preempt at once if someone waits. */
static void st_preempt(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	preempts++;
	if (saakm_rq_first(per_cpu_ptr(&st_rq, cpu))) {
		st_charge(p);
		saakm_change_state(p, SAAKM_READY_TICK, cpu, per_cpu_ptr(&st_rq, cpu));
	}
}

static enum hrtimer_restart st_kick_fn(struct hrtimer *timer)
{
	struct st_cpu *sc = container_of(timer, struct st_cpu, kick_timer);

	kick_fires++;
	if (smp_processor_id() != sc->cpu)
		kick_wrong_cpu++;
	saakm_kick_cpu(st_pol, sc->cpu, SAAKM_KICK_PREEMPT);
	return HRTIMER_NORESTART;
}

static void st_core_exit(struct saakm_policy *pol, int cpu)
{
	hrtimer_cancel(&per_cpu_ptr(st_stats, cpu)->kick_timer);
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
	last_runtime = attr->runtime;
	last_size = attr->data ? attr->size : 0;
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
	.preempt	= st_preempt,
	.core_exit	= st_core_exit,
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
	for_each_possible_cpu(cpu) {
		struct st_cpu *sc = per_cpu_ptr(st_stats, cpu);

		saakm_rq_init(per_cpu_ptr(&st_rq, cpu), rq_kind, st_less, cpu);
		hrtimer_init(&sc->kick_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		sc->kick_timer.function = st_kick_fn;
		sc->cpu = cpu;
	}
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
