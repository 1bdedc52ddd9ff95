// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM policy library: the small services a policy calls (the runqueues
 * are in saakm_rq.c). None of it keeps class state or takes a lock: the
 * callbacks that use it hold the locks already.
 */
#include "saakm_record.h"

/* Services. */

/**
 * saakm_can_migrate - may balancing move @p to @dst_cpu now?
 * @p: a READY task, its rq locked
 * @dst_cpu: the destination CPU
 *
 * Return: true if @dst_cpu is in the task's affinity and active, and the task
 * is neither running nor in a migrate-disabled section.
 */
bool saakm_can_migrate(struct task_struct *p, int dst_cpu)
{
	bool ok = cpumask_test_cpu(dst_cpu, p->cpus_ptr) && cpu_active(dst_cpu) &&
		  !is_migration_disabled(p) && !task_on_cpu(task_rq(p), p);

	saakm_rec_input(SAAKM_INPUT_CAN_MIGRATE, p, dst_cpu, ok);
	return ok;
}
EXPORT_SYMBOL_GPL(saakm_can_migrate);

/**
 * saakm_running_ns - CPU time used since the task last became RUNNING
 * @p: a RUNNING task, its rq locked (e.g. in tick())
 *
 * Counts only time actually spent on the CPU: while a higher class holds
 * the CPU, the clock stops, so a task preempted often still reaches the end
 * of its slice.
 *
 * Return: nanoseconds of execution since @p became RUNNING, 0 if it is not
 * running.
 */
u64 saakm_running_ns(struct task_struct *p)
{
	u64 ns = 0;

	if (p->saakm.state == SAAKM_RUNNING)
		ns = p->se.sum_exec_runtime - p->saakm.run_start;
	saakm_rec_input(SAAKM_INPUT_RUNNING_NS, p, -1, ns);
	return ns;
}
EXPORT_SYMBOL_GPL(saakm_running_ns);

/**
 * saakm_exec_ns - CPU time @p has used since it was created
 * @p: a task of the policy, its rq locked (any callback that names it)
 *
 * Unlike saakm_running_ns(), it does not restart with each run: a policy
 * that charges virtual time keeps the last value it charged and takes the
 * difference, so that the part of a run after its last tick() is charged
 * too. Policies read this, never p->se.sum_exec_runtime, so that replay
 * serves them the recorded value. For a running task it counts up to the
 * class's last update (tick, switch, or a preempt kick), not up to now: in
 * unblock_place() the running task's last stretch is not in it yet.
 *
 * Return: nanoseconds of execution, in every class @p has run in.
 */
u64 saakm_exec_ns(struct task_struct *p)
{
	u64 ns = p->se.sum_exec_runtime;

	saakm_rec_input(SAAKM_INPUT_EXEC_NS, p, -1, ns);
	return ns;
}
EXPORT_SYMBOL_GPL(saakm_exec_ns);

/**
 * saakm_clock_ns - the time now, as a policy may read it
 * @pol: the policy that reads it (the callback's @pol)
 *
 * local_clock(): monotonic on each CPU, and on machines with a stable clock
 * (x86 with an invariant TSC) the CPUs agree. Policies read the time only
 * through this function, never jiffies or ktime, so that replay serves
 * them the recorded time (an INPUT record while @pol is recorded) and
 * libusim its simulated one. From callbacks and the policy's timers.
 *
 * Return: nanoseconds since boot.
 */
u64 saakm_clock_ns(struct saakm_policy *pol)
{
	u64 ns = local_clock();

	if (static_branch_unlikely(&saakm_recording_key))
		__saakm_rec_read(pol, SAAKM_INPUT_CLOCK, -1, ns);
	return ns;
}
EXPORT_SYMBOL_GPL(saakm_clock_ns);

/**
 * saakm_topo_mask - CPUs that share a topology level with @cpu
 * @cpu: a CPU
 * @level: SMT siblings, cluster, last-level cache, NUMA node, or all online
 *
 * The masks are the ones the scheduler's own domains are built from, and
 * follow CPU hotplug. A level the kernel is configured without returns the
 * next wider one.
 *
 * Return: a cpumask, valid until the next hotplug operation.
 */
const struct cpumask *saakm_topo_mask(int cpu, enum saakm_topo_level level)
{
	switch (level) {
#ifdef CONFIG_SCHED_SMT
	case SAAKM_TOPO_SMT:
		return cpu_smt_mask(cpu);
#endif
#ifdef CONFIG_SCHED_CLUSTER
	case SAAKM_TOPO_CLUSTER:
		return cpu_clustergroup_mask(cpu);
#endif
#ifdef CONFIG_SCHED_MC
	case SAAKM_TOPO_LLC:
		return cpu_coregroup_mask(cpu);
#endif
	case SAAKM_TOPO_NUMA:
		return cpumask_of_node(cpu_to_node(cpu));
	default:
		break;
	}
	if (level < SAAKM_TOPO_NUMA)
		return saakm_topo_mask(cpu, level + 1);
	return cpu_online_mask;
}
EXPORT_SYMBOL_GPL(saakm_topo_mask);

/**
 * saakm_topo_distance - NUMA distance between the nodes of two CPUs
 * @cpu_a: a CPU
 * @cpu_b: another CPU
 *
 * Return: the firmware's node distance (10 for the same node).
 */
int saakm_topo_distance(int cpu_a, int cpu_b)
{
	return node_distance(cpu_to_node(cpu_a), cpu_to_node(cpu_b));
}
EXPORT_SYMBOL_GPL(saakm_topo_distance);

/**
 * saakm_idle_cpu - an idle CPU within @mask that @p may run on
 * @pol: the policy that asks (the callback's @pol)
 * @p: the task to place, or NULL to ignore affinity
 * @mask: the CPUs to look in, such as saakm_llc_cpus()
 * @first: the CPU to look at first (e.g. the task's previous CPU); the
 *	search goes on from it upwards and wraps
 *
 * A CPU is idle when it runs its idle task and has nothing queued or being
 * woken, in any class. Read without the other CPUs' locks, it is a hint that
 * may be stale by the time the task arrives; the result is recorded like a
 * saakm_read_cpu() so that replay takes the same decision. It walks @mask:
 * give it one LLC, not the whole machine, on a hot path.
 *
 * Return: an active CPU of @mask in @p's affinity that is idle, or -1.
 */
int saakm_idle_cpu(struct saakm_policy *pol, struct task_struct *p,
		   const struct cpumask *mask, int first)
{
	int cpu, found = -1;

	if (first < 0 || first >= nr_cpu_ids)
		first = 0;
	for_each_cpu_wrap(cpu, mask, first) {
		if (p && !cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		if (cpu_active(cpu) && available_idle_cpu(cpu)) {
			found = cpu;
			break;
		}
	}
	return (int)saakm_read_cpu(pol, -1, found);
}
EXPORT_SYMBOL_GPL(saakm_idle_cpu);

/**
 * saakm_llc_nr_running - tasks running or waiting to run in @cpu's LLC
 * @pol: the policy that asks (the callback's @pol)
 * @cpu: an online CPU
 *
 * The sum of the run queue lengths of the LLC's online CPUs, in every class
 * (a CPU's running task included), read without their locks: a load hint for
 * choosing a cache domain, recorded like a saakm_read_cpu(). It walks the
 * LLC's CPUs.
 *
 * Return: the number of tasks.
 */
unsigned int saakm_llc_nr_running(struct saakm_policy *pol, int cpu)
{
	unsigned int n = 0;
	int other;

	for_each_cpu(other, saakm_llc_cpus(cpu))
		n += READ_ONCE(cpu_rq(other)->nr_running);
	return saakm_read_cpu(pol, cpu, n);
}
EXPORT_SYMBOL_GPL(saakm_llc_nr_running);

/**
 * saakm_nice_weight - the fair class's load weight of a nice value
 * @nice: nice value; clamped to -20..19
 *
 * The same table as the fair class (sched_prio_to_weight): 1024 at nice 0,
 * about 1.25 times more per step down, so that a policy's weights mean what
 * they mean to EEVDF.
 *
 * Return: the weight, from 15 (nice 19) to 88761 (nice -20).
 */
unsigned int saakm_nice_weight(int nice)
{
	return sched_prio_to_weight[clamp(nice, MIN_NICE, MAX_NICE) - MIN_NICE];
}
EXPORT_SYMBOL_GPL(saakm_nice_weight);
