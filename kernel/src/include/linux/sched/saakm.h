/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SaaKM per-task scheduling state, embedded in task_struct.
 *
 * This header only defines what task_struct needs to carry. The policy API
 * lives in <linux/saakm.h>; the class core in kernel/sched/saakm/.
 */
#ifndef _LINUX_SCHED_SAAKM_H
#define _LINUX_SCHED_SAAKM_H

#ifdef CONFIG_SCHED_CLASS_SAAKM

#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/types.h>
#include <uapi/linux/saakm.h>

struct saakm_policy;
struct saakm_rq;

#define SAAKM_STATE_ENUM(name)	SAAKM_##name,

/*
 * enum saakm_task_state - where a task stands from its policy's point of
 * view; the list, with a line on each state, is SAAKM_STATES() in
 * <uapi/linux/saakm.h>. SAAKM_NR_STATES counts them.
 */
enum saakm_task_state {
	SAAKM_STATES(SAAKM_STATE_ENUM)
	SAAKM_NR_STATES,
};

/**
 * struct sched_saakm_entity - SaaKM state of one task
 * @policy: policy the task is attached to, NULL when not attached
 * @data: per-task data owned by the policy (see saakm_task_data())
 * @state: current &enum saakm_task_state
 * @cpu: CPU whose runqueue the task was last placed on or picked from
 * @queue: policy runqueue holding the task, NULL when in none
 * @node: link in @queue (FIFO and ordered list runqueues)
 * @rb: link in @queue (rbtree runqueues)
 * @core_node: link in a class-owned list (tasks preempted while running)
 * @policy_node: link in the policy's list of attached tasks
 * @ready_at: its CPU's saakm_wait_clock() at the task's last state change
 * @run_start: the task's sum_exec_runtime when it last became RUNNING
 * @woken_at: rq clock of its last wakeup, until it runs (0: not waiting)
 * @runtime: sched_runtime of its last sched_setattr() (ns, 0: none)
 * @flags: SAAKM_TF_* flags
 *
 * Every field is private to the class core: a policy reads what it needs
 * through the accessors of <linux/saakm.h> (saakm_task_state(),
 * saakm_task_cpu(), saakm_task_data()) and changes a task's state only with
 * saakm_change_state(), so that the class can check each change.
 */
struct sched_saakm_entity {
	struct saakm_policy	*policy;
	void			*data;
	enum saakm_task_state	state;
	int			cpu;
	struct saakm_rq		*queue;
	struct list_head	node;
	struct rb_node		rb;
	struct list_head	core_node;
	struct list_head	policy_node;
	unsigned long		ready_at;
	u64			run_start;
	u64			woken_at;
	u64			runtime;
	unsigned int		flags;
};

#endif /* CONFIG_SCHED_CLASS_SAAKM */
#endif /* _LINUX_SCHED_SAAKM_H */
