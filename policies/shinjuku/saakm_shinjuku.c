// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_shinjuku: one first-come-first-served queue for all CPUs, with
 * microsecond preemption, after Shinjuku (Kaffes et al., NSDI '19).
 *
 * Runnable tasks wait in one queue, ordered by arrival: a stamp taken when a
 * task is created, wakes up, yields or is preempted. A running task gets
 * slice_us microseconds, then goes to the tail if another task waits on its
 * CPU: a short request never waits behind a long one for more than a slice
 * per task ahead of it. In SaaKM a CPU runs only tasks placed on it (rule 2
 * of <linux/saakm.h>), so each queued task is also READY on one CPU; the
 * queue is a shared runqueue (cpu -1) under a raw spinlock (it nests in the
 * raw rq locks). A waking task goes to an idle CPU, else to the CPU with the
 * fewest waiting. A CPU whose task stops runs the oldest task waiting on it;
 * with none, it takes the oldest of all: newly_idle() names that task's CPU,
 * balance_pick() hands it over, the class migrates it and calls
 * unblock_place(), where it keeps its stamp. The slice is a pinned per-CPU
 * hrtimer started by schedule(); it kicks its CPU with saakm_kick_cpu(), and
 * preempt() (or tick()) sends the task to the tail if someone waits there,
 * once it had its slice on the CPU (a slow switch does not use it up).
 *
 * Good at: tail latency of short requests mixed with long ones (key-value
 * stores). Bad at: throughput of long tasks (a switch every slice when
 * others wait), cache affinity, and scale (one lock and one queue, walked
 * by schedule()). FCFS is strict for CPUs that run out of work; a busy CPU
 * serves the tasks waiting on it, in order.
 *
 * Parameter: slice_us (default 30, 5..1000000; at load or in sysfs, from
 * the next dispatch).
 */
#include <linux/saakm.h>
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>

/* Below 5 µs, ending a slice (timer, kick, switch) costs more than the slice. */
SAAKM_PARAM_UINT(slice_us, 30, 5, 1000000, 0644, "time slice in microseconds");

struct sj_cpu {
	struct hrtimer timer;	/* end of the running task's slice */
	int cpu;
	unsigned int nr_queued;	/* tasks READY on this CPU, under sj_lock */
	bool slice_over;	/* the running task used its slice */
	u64 slice_from;		/* saakm_running_ns() when its slice began, or: */
#define NOT_SEEN	(~0ULL)	/* preempt() and tick() not called since schedule() */
};

static DEFINE_PER_CPU(struct sj_cpu, sj_cpus);
static struct saakm_rq sj_queue;	/* every READY task, oldest first */
static DEFINE_RAW_SPINLOCK(sj_lock);	/* sj_queue, nr_queued, sj_clock */
static u64 sj_clock;			/* the last arrival stamp */
static struct cpumask sj_idle;		/* CPUs with nothing of ours to run */
static struct saakm_policy *sj_pol;
#define sj_cpu(cpu)	per_cpu_ptr(&sj_cpus, cpu)

/* A task's arrival stamp, its data word; 0: new, slept, yielded or preempted. */
static u64 stamp(struct task_struct *p)
{
	return (unsigned long)*saakm_task_data(p);
}

static bool sj_older(struct task_struct *a, struct task_struct *b)
{
	return stamp(a) < stamp(b);
}

/* Queue @p on @cpu in @state (READY or READY_TICK); sj_lock held. */
static void sj_queue_on(struct task_struct *p, int cpu, enum saakm_task_state state)
{
	if (!stamp(p))
		*saakm_task_data(p) = (void *)(unsigned long)(++sj_clock);
	saakm_change_state(p, state, cpu, &sj_queue);
	sj_cpu(cpu)->nr_queued++;
}

/* Move @p to @state, off sj_queue if it is queued; sj_lock held. */
static void sj_unqueue(struct task_struct *p, enum saakm_task_state state, int cpu)
{
	if (saakm_task_state(p) == SAAKM_READY || saakm_task_state(p) == SAAKM_READY_TICK)
		sj_cpu(saakm_task_cpu(p))->nr_queued--;	/* where sj_queue_on() counted it */
	saakm_change_state(p, state, cpu, NULL);
}

/* Other CPUs' idle bit and queue length, unlocked hints: saakm_read_cpu() records them. */
static bool sj_idles(struct saakm_policy *pol, unsigned int cpu)
{
	return saakm_read_cpu(pol, cpu, cpumask_test_cpu(cpu, &sj_idle));
}

static unsigned int sj_waiting(struct saakm_policy *pol, unsigned int cpu)
{
	return saakm_read_cpu(pol, cpu, READ_ONCE(sj_cpu(cpu)->nr_queued));
}

/*
 * new_prepare, unblock_prepare: an idle CPU (its last one first: a warm cache);
 * else the one with the fewest waiting (its last on a tie).
 */
static int sj_select_cpu(struct saakm_policy *pol, struct task_struct *p)
{
	unsigned int cpu, best = task_cpu(p), fewest, n;

	if (!cpumask_test_cpu(best, p->cpus_ptr))
		best = cpumask_any_and(p->cpus_ptr, cpu_online_mask);
	if (sj_idles(pol, best))
		return best;
	for_each_cpu(cpu, p->cpus_ptr)
		if (cpu != best && sj_idles(pol, cpu))
			return cpu;
	fewest = sj_waiting(pol, best);
	for_each_cpu_and(cpu, p->cpus_ptr, cpu_online_mask) {
		n = cpu == best ? fewest : sj_waiting(pol, cpu);
		if (n < fewest) {
			best = cpu;
			fewest = n;
		}
	}
	return best;
}

/* @p waits on busy @cpu: preempt its task if past its slice; kick an idle CPU to pull. */
static void sj_wake_someone(struct task_struct *p, int cpu)
{
	unsigned int idle;

	if (cpumask_test_cpu(cpu, &sj_idle))
		return;		/* the class wakes an idle CPU itself */
	if (READ_ONCE(sj_cpu(cpu)->slice_over))
		saakm_kick_cpu(sj_pol, cpu, SAAKM_KICK_PREEMPT);
	idle = cpumask_first_and(&sj_idle, p->cpus_ptr);
	if (idle < nr_cpu_ids)
		saakm_kick_cpu(sj_pol, idle, 0);
}

/* new_place, unblock_place. A task the class moved keeps its place in line. */
static void sj_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	raw_spin_lock(&sj_lock);
	sj_queue_on(p, cpu, SAAKM_READY);
	raw_spin_unlock(&sj_lock);
	sj_wake_someone(p, cpu);
}

/* The oldest task queued on @cpu starts, with a fresh slice; @cpu is busy. */
static struct task_struct *sj_schedule(struct saakm_policy *pol, int cpu)
{
	struct sj_cpu *sc = sj_cpu(cpu);
	struct task_struct *p = NULL;

	raw_spin_lock(&sj_lock);
	saakm_rq_for_each(p, &sj_queue)
		if (task_cpu(p) == cpu)
			break;
	if (p) {
		sj_unqueue(p, SAAKM_RUNNING, cpu);
		cpumask_clear_cpu(cpu, &sj_idle);
		WRITE_ONCE(sc->slice_over, false);
		sc->slice_from = NOT_SEEN;
		hrtimer_start(&sc->timer, ns_to_ktime(READ_ONCE(slice_us) * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
	raw_spin_unlock(&sj_lock);
	return p;
}

/* The slice timer of one CPU: mark the slice over, ask preempt() about it. */
static enum hrtimer_restart sj_slice_end(struct hrtimer *timer)
{
	struct sj_cpu *sc = container_of(timer, struct sj_cpu, timer);

	WRITE_ONCE(sc->slice_over, true);
	saakm_kick_cpu(sj_pol, sc->cpu, SAAKM_KICK_PREEMPT);
	return HRTIMER_NORESTART;
}

/*
 * preempt and tick: past its slice, with someone waiting here, go to the
 * tail. Once: the other one may come before the CPU switches (READY_TICK).
 * A slice that ended before the task ran (a switch slower than two slices)
 * starts now: else tasks would all be put back as they come in, doing nothing.
 * The timer sets slice_over outside any callback: read through saakm_read_cpu(),
 * so that replay, where timers fire on a clock of its own, sees what we saw.
 */
static void sj_preempt(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	u64 slice = (u64)READ_ONCE(slice_us) * NSEC_PER_USEC, ran = saakm_running_ns(p);
	struct sj_cpu *sc = sj_cpu(cpu);
	bool over = saakm_read_cpu(pol, cpu, READ_ONCE(sc->slice_over));

	if (sc->slice_from == NOT_SEEN) {	/* the first look since schedule() */
		sc->slice_from = over && ran >= 2 * slice ? ran : 0;
		if (sc->slice_from) {
			over = false;
			hrtimer_start(&sc->timer, ns_to_ktime(slice), HRTIMER_MODE_REL_PINNED_HARD);
		}
	}
	over = over || ran >= sc->slice_from + slice;
	WRITE_ONCE(sc->slice_over, over);
	if (!over || saakm_task_state(p) != SAAKM_RUNNING)
		return;
	raw_spin_lock(&sj_lock);
	if (sc->nr_queued) {
		*saakm_task_data(p) = NULL;	/* to the tail */
		sj_queue_on(p, cpu, SAAKM_READY_TICK);
	}
	raw_spin_unlock(&sj_lock);
}

/*
 * When a CPU's running task stops (block, yield, terminate), so does its slice
 * timer. A task going to sleep loses its place; one moved while READY keeps it.
 */
static void sj_block(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	if (saakm_task_state(p) == SAAKM_RUNNING) {
		hrtimer_try_to_cancel(&sj_cpu(cpu)->timer);
		*saakm_task_data(p) = NULL;
	}
	raw_spin_lock(&sj_lock);
	sj_unqueue(p, SAAKM_BLOCKED, -1);
	raw_spin_unlock(&sj_lock);
}

static void sj_yield(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	hrtimer_try_to_cancel(&sj_cpu(cpu)->timer);
	*saakm_task_data(p) = NULL;
	raw_spin_lock(&sj_lock);
	sj_queue_on(p, cpu, SAAKM_READY);
	raw_spin_unlock(&sj_lock);
}

static void sj_terminate(struct saakm_policy *pol, struct task_struct *p)
{
	if (saakm_task_state(p) == SAAKM_RUNNING)
		hrtimer_try_to_cancel(&sj_cpu(task_cpu(p))->timer);
	raw_spin_lock(&sj_lock);
	sj_unqueue(p, SAAKM_TERMINATED, -1);
	raw_spin_unlock(&sj_lock);
}

/*
 * @cpu has nothing to run: the CPU of the oldest task it may take, or -1.
 * Other CPUs' tasks, under sj_lock but not their rq locks: the queue's
 * length, read through saakm_read_cpu(), tells replay when we looked.
 */
static int sj_newly_idle(struct saakm_policy *pol, int cpu)
{
	struct task_struct *p = NULL;
	int src;

	raw_spin_lock(&sj_lock);
	if (saakm_read_cpu(pol, -1, saakm_rq_len(&sj_queue)))
		saakm_rq_for_each(p, &sj_queue)
			if (task_cpu(p) != cpu && saakm_can_migrate(p, cpu))
				break;
	src = p ? task_cpu(p) : -1;
	raw_spin_unlock(&sj_lock);
	return src;
}

/* rq(src) and rq(dst) locked: hand over the oldest task of @src that may move. */
static struct task_struct *sj_balance_pick(struct saakm_policy *pol, int src, int dst)
{
	struct task_struct *p;

	raw_spin_lock(&sj_lock);
	saakm_rq_for_each(p, &sj_queue)
		if (task_cpu(p) == src && saakm_can_migrate(p, dst))
			break;
	if (p)
		sj_unqueue(p, SAAKM_MIGRATING, -1);
	raw_spin_unlock(&sj_lock);
	return p;
}

static void sj_enter_idle(struct saakm_policy *pol, int cpu)
{
	cpumask_set_cpu(cpu, &sj_idle);
}

static void sj_exit_idle(struct saakm_policy *pol, int cpu)
{
	cpumask_clear_cpu(cpu, &sj_idle);
}

/* A CPU joins: say it idles until it runs one of ours (schedule(), exit_idle()). */
static void sj_core_entry(struct saakm_policy *pol, int cpu)
{
	WRITE_ONCE(sj_cpu(cpu)->slice_over, false);
	cpumask_set_cpu(cpu, &sj_idle);
}

/* A CPU leaves: a pinned timer would migrate to another CPU, so stop it. */
static void sj_core_exit(struct saakm_policy *pol, int cpu)
{
	cpumask_clear_cpu(cpu, &sj_idle);
	hrtimer_cancel(&sj_cpu(cpu)->timer);
}

static struct saakm_ops sj_ops = {
	.name		= "shinjuku",
	.new_prepare	= sj_select_cpu,
	.new_place	= sj_place,
	.unblock_prepare = sj_select_cpu,
	.unblock_place	= sj_place,
	.block		= sj_block,
	.yield		= sj_yield,
	.tick		= sj_preempt,
	.preempt	= sj_preempt,
	.terminate	= sj_terminate,
	.schedule	= sj_schedule,
	.newly_idle	= sj_newly_idle,
	.balance_pick	= sj_balance_pick,
	.enter_idle	= sj_enter_idle,
	.exit_idle	= sj_exit_idle,
	.core_entry	= sj_core_entry,
	.core_exit	= sj_core_exit,
};

static int __init sj_init(void)
{
	int cpu;

	saakm_rq_init(&sj_queue, SAAKM_RQ_RBTREE, sj_older, -1);
	for_each_possible_cpu(cpu) {
		struct sj_cpu *sc = sj_cpu(cpu);

		hrtimer_init(&sc->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		sc->timer.function = sj_slice_end;
		sc->cpu = cpu;
	}
	sj_pol = saakm_register_policy(&sj_ops, NULL);
	return PTR_ERR_OR_ZERO(sj_pol);
}

static void __exit sj_exit(void)
{
	int cpu;

	saakm_unregister_policy(sj_pol);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&sj_cpu(cpu)->timer);
}
module_init(sj_init);
module_exit(sj_exit);
MODULE_DESCRIPTION("SaaKM Shinjuku: global FCFS queue, microsecond preemption");
MODULE_LICENSE("GPL");
