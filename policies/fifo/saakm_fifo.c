// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_fifo: per-CPU FIFO scheduling, the SaaKM reference policy.
 *
 * Every CPU has one FIFO runqueue. A task's CPU is chosen from its PID among
 * the CPUs it may use (the n-th allowed CPU, n = pid % number allowed), when
 * it is created and each time it wakes up, so placement is deterministic and
 * the same decisions can be made by a sched_ext twin (bench/ext_fifo). A
 * running task keeps its CPU until it blocks, yields, or has used its slice
 * while others wait on the same CPU; it then goes to the tail.
 *
 * Good at: very little work per event, so it measures the cost of the
 * framework itself (the paper's evaluation policy). Bad at: load balance;
 * two busy tasks can share a CPU while another idles. With steal=1 an idle
 * CPU pulls the oldest task from the longest queue (newly_idle and
 * balance_pick), which fixes the worst of it.
 *
 * Parameters: slice_ms (default 20, 0 = run until blocking), steal (0).
 */
#include <linux/saakm.h>

SAAKM_PARAM_UINT(slice_ms, 20, 0, 1000, 0644, "time slice in ms when others wait (0: no preemption)");

static bool steal;
module_param(steal, bool, 0444);
MODULE_PARM_DESC(steal, "idle CPUs steal from the longest queue");
static DEFINE_PER_CPU(struct saakm_rq, fifo_rq);
static struct saakm_policy *fifo;

static struct saakm_rq *rq_of(int cpu)
{
	return per_cpu_ptr(&fifo_rq, cpu);
}

/* The n-th CPU the task may run on, n = pid % number of such CPUs. */
static int fifo_pick_cpu(struct saakm_policy *pol, struct task_struct *p)
{
	return cpumask_nth(p->pid % cpumask_weight(p->cpus_ptr), p->cpus_ptr);
}

/* A task created, woken up or yielding goes to the tail of its CPU's queue. */
static void fifo_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	saakm_change_state(p, SAAKM_READY, cpu, rq_of(cpu));
}

static struct task_struct *fifo_schedule(struct saakm_policy *pol, int cpu)
{
	struct task_struct *p = saakm_rq_first(rq_of(cpu));

	if (p)
		saakm_change_state(p, SAAKM_RUNNING, cpu, NULL);
	return p;
}

static void fifo_block(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	saakm_change_state(p, SAAKM_BLOCKED, -1, NULL);
}

/* Round robin among the tasks of one CPU, only when someone is waiting. */
static void fifo_tick(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	u64 slice_ns = (u64)READ_ONCE(slice_ms) * NSEC_PER_MSEC;

	if (slice_ns && saakm_rq_len(rq_of(cpu)) &&
	    saakm_running_ns(p) >= slice_ns)
		saakm_change_state(p, SAAKM_READY_TICK, cpu, rq_of(cpu));
}

static void fifo_terminate(struct saakm_policy *pol, struct task_struct *p)
{
	saakm_change_state(p, SAAKM_TERMINATED, -1, NULL);
}

/*
 * Idle: steal from the CPU with the longest queue. Other CPUs' queues are
 * read without their locks, through saakm_read_cpu(), which records what it
 * read so that replay gives the policy the same.
 */
static int fifo_newly_idle(struct saakm_policy *pol, int cpu)
{
	unsigned int len, best_len = 0;
	int other, best = -1;

	for_each_online_cpu(other) {
		if (other == cpu)
			continue;
		len = saakm_read_cpu(pol, other, saakm_rq_len(rq_of(other)));
		if (len > best_len) {
			best = other;
			best_len = len;
		}
	}
	return best;
}

/* Both CPUs locked: hand over the oldest task that may move. */
static struct task_struct *fifo_balance_pick(struct saakm_policy *pol, int src, int dst)
{
	struct task_struct *p;

	saakm_rq_for_each(p, rq_of(src))
		if (saakm_can_migrate(p, dst))
			break;
	if (p)
		saakm_change_state(p, SAAKM_MIGRATING, -1, NULL);
	return p;
}

static struct saakm_ops fifo_ops = {
	.name		= "fifo",
	.new_prepare	= fifo_pick_cpu,
	.new_place	= fifo_place,
	.unblock_prepare = fifo_pick_cpu,
	.unblock_place	= fifo_place,
	.block		= fifo_block,
	.yield		= fifo_place,
	.tick		= fifo_tick,
	.terminate	= fifo_terminate,
	.schedule	= fifo_schedule,
	.balance_pick	= fifo_balance_pick,
};

static int __init fifo_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		saakm_rq_init(rq_of(cpu), SAAKM_RQ_FIFO, NULL, cpu);
	if (steal)
		fifo_ops.newly_idle = fifo_newly_idle;
	fifo = saakm_register_policy(&fifo_ops, NULL);
	return PTR_ERR_OR_ZERO(fifo);
}

static void __exit fifo_exit(void)
{
	saakm_unregister_policy(fifo);
}
module_init(fifo_init);
module_exit(fifo_exit);
MODULE_DESCRIPTION("SaaKM per-CPU FIFO policy");
MODULE_LICENSE("GPL");
