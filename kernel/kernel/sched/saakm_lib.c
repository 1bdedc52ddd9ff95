// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM policy library: the runqueues and small services a policy calls.
 * None of it keeps class state or takes a lock: the callbacks that use it
 * hold the locks already. saakm_change_state() (saakm_policy.c) is the only
 * caller of saakm_rq_insert() and saakm_rq_remove(), so a task is in a
 * runqueue exactly while it is READY.
 */
#include "saakm_internal.h"

/* Runqueues: FIFO, ordered list, rbtree (see enum saakm_rq_kind). */


/* Insert @p in @rq: the caller holds the lock that protects @rq. */
void saakm_rq_insert(struct saakm_rq *rq, struct task_struct *p)
{
	struct rb_node **link = &rq->root.rb_root.rb_node, *parent = NULL;
	struct task_struct *q;
	bool leftmost = true;

	switch (rq->kind) {
	case SAAKM_RQ_FIFO:
		list_add_tail(&p->saakm.node, &rq->list);
		break;
	case SAAKM_RQ_LIST:
		/* Before the first task @p must run ahead of: FIFO among equals. */
		list_for_each_entry(q, &rq->list, saakm.node)
			if (rq->less(p, q))
				break;
		list_add_tail(&p->saakm.node, &q->saakm.node);
		break;
	case SAAKM_RQ_RBTREE:
		while (*link) {
			parent = *link;
			q = rb_entry(parent, struct task_struct, saakm.rb);
			if (rq->less(p, q)) {
				link = &parent->rb_left;
			} else {
				link = &parent->rb_right;
				leftmost = false;
			}
		}
		rb_link_node(&p->saakm.rb, parent, link);
		rb_insert_color_cached(&p->saakm.rb, &rq->root, leftmost);
		break;
	}
	p->saakm.queue = rq;
	WRITE_ONCE(rq->nr, rq->nr + 1);
}

/* Take @p off the runqueue it is in. */
void saakm_rq_remove(struct task_struct *p)
{
	struct saakm_rq *rq = p->saakm.queue;

	if (rq->kind == SAAKM_RQ_RBTREE) {
		rb_erase_cached(&p->saakm.rb, &rq->root);
		RB_CLEAR_NODE(&p->saakm.rb);
	} else {
		list_del_init(&p->saakm.node);
	}
	p->saakm.queue = NULL;
	WRITE_ONCE(rq->nr, rq->nr - 1);
}

/**
 * saakm_rq_init - initialize a policy runqueue
 * @rq: the runqueue
 * @kind: %SAAKM_RQ_FIFO, %SAAKM_RQ_LIST or %SAAKM_RQ_RBTREE
 * @less: order of @kind LIST and RBTREE (tasks that compare equal keep their
 *	arrival order); ignored for FIFO
 * @cpu: the CPU the runqueue serves, or -1 for a runqueue shared by CPUs
 */
void saakm_rq_init(struct saakm_rq *rq, enum saakm_rq_kind kind,
		   saakm_less_fn less, int cpu)
{
	rq->kind = kind;
	rq->less = less;
	rq->nr = 0;
	rq->cpu = cpu;
	INIT_LIST_HEAD(&rq->list);
	rq->root = RB_ROOT_CACHED;
	WARN_ON_ONCE(kind != SAAKM_RQ_FIFO && !less);
}
EXPORT_SYMBOL_GPL(saakm_rq_init);

/**
 * saakm_rq_first - the task at the head of a runqueue
 * @rq: the runqueue, locked
 *
 * Return: the first task (oldest for FIFO, smallest for ordered runqueues),
 * or NULL if @rq is empty. The task stays queued.
 */
struct task_struct *saakm_rq_first(struct saakm_rq *rq)
{
	struct rb_node *node;

	if (rq->kind != SAAKM_RQ_RBTREE)
		return list_first_entry_or_null(&rq->list, struct task_struct,
						saakm.node);
	node = rb_first_cached(&rq->root);
	return node ? rb_entry(node, struct task_struct, saakm.rb) : NULL;
}
EXPORT_SYMBOL_GPL(saakm_rq_first);

/**
 * saakm_rq_next - the task after @p in a runqueue
 * @rq: the runqueue, locked
 * @p: a task queued in @rq
 *
 * Return: the next task in order, or NULL after the last one.
 */
struct task_struct *saakm_rq_next(struct saakm_rq *rq, struct task_struct *p)
{
	struct rb_node *node;

	if (rq->kind != SAAKM_RQ_RBTREE) {
		if (list_is_last(&p->saakm.node, &rq->list))
			return NULL;
		return list_next_entry(p, saakm.node);
	}
	node = rb_next(&p->saakm.rb);
	return node ? rb_entry(node, struct task_struct, saakm.rb) : NULL;
}
EXPORT_SYMBOL_GPL(saakm_rq_next);

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
	return cpumask_test_cpu(dst_cpu, p->cpus_ptr) && cpu_active(dst_cpu) &&
	       !is_migration_disabled(p) && !task_on_cpu(task_rq(p), p);
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
	if (p->saakm.state != SAAKM_RUNNING)
		return 0;
	return p->se.sum_exec_runtime - p->saakm.run_start;
}
EXPORT_SYMBOL_GPL(saakm_running_ns);

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
