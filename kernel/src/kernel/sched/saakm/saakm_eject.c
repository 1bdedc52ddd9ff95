// SPDX-License-Identifier: GPL-2.0
/*
 * Ejection: how a faulty policy is reported, bypassed and drained, so that a
 * bug in a policy module never costs a task. Every fault the class finds
 * (saakm_safety.c, saakm_state.c, saakm.c) and saakm_policy_error() end in
 * saakm_eject(); the first error wins.
 *
 * Reporting. The reason goes to the kernel log and /proc/saakm/errors. With
 * /sys/kernel/saakm/panic_on_error set, the kernel panics instead, so that
 * kdump or KGDB catch the state at the fault.
 *
 * Bypass. From then on saakm_call() skips the policy (saakm_call.h), and the
 * class runs its tasks itself (saakm_safety.c, saakm_bypass_pick()).
 *
 * Drain. A work item moves every task of the policy back to SCHED_NORMAL
 * with sched_setattr(); saakm_unregister_policy() drains the same way.
 */
#include "saakm_eject.h"
#include "saakm_record.h"

/* /sys/kernel/saakm/panic_on_error: panic at the first policy error. */
DEFINE_STATIC_KEY_FALSE(saakm_panic_key);

/*
 * Move every task of @pol back to SCHED_NORMAL. New tasks are refused by
 * then (state not ENABLED), but a sched_setattr() or fork that checked the
 * state just before may still attach one: those run under an RCU read-side
 * section, so loop until a grace period passes with no task left.
 */
void saakm_drain(struct saakm_policy *pol)
{
	struct sched_attr attr = {
		.size		= sizeof(attr),
		.sched_policy	= SCHED_NORMAL,
	};

	do {
		for (;;) {
			struct task_struct *p;

			raw_spin_lock_irq(&pol->lock);
			p = list_first_entry_or_null(&pol->tasks, struct task_struct,
						     saakm.policy_node);
			if (p)
				get_task_struct(p);
			raw_spin_unlock_irq(&pol->lock);
			if (!p)
				break;

			attr.sched_nice = task_nice(p);
			attr.sched_flags = p->sched_reset_on_fork ?
					   SCHED_FLAG_RESET_ON_FORK : 0;
			WARN_ON_ONCE(sched_setattr_nocheck(p, &attr));
			put_task_struct(p);
			cond_resched();
		}
		synchronize_rcu();
	} while (atomic_read(&pol->nr_tasks));
}

static void saakm_eject_workfn(struct work_struct *work)
{
	struct saakm_policy *pol = container_of(work, struct saakm_policy, eject_work);

	saakm_drain(pol);
	pr_err("saakm: policy %s (id %d) ejected, its tasks now run under SCHED_NORMAL: %s: %s\n",
	       pol->ops.name, pol->id, saakm_eject_kind_name(pol->kind), pol->reason);
}

/* Errors are raised with rq locks held: queue the work from an irq_work. */
static void saakm_eject_irq_workfn(struct irq_work *work)
{
	struct saakm_policy *pol = container_of(work, struct saakm_policy, eject_irq_work);

	schedule_work(&pol->eject_work);
}

static __printf(3, 0) void saakm_veject(struct saakm_policy *pol, enum saakm_eject_kind kind,
					const char *fmt, va_list args)
{
	if (!pol || cmpxchg(&pol->state, SAAKM_POLICY_ENABLED,
			    SAAKM_POLICY_EJECTED) != SAAKM_POLICY_ENABLED)
		return;
	saakm_rec(pol, SAAKM_REC_ERROR, 0, -1, NULL, -1, -1, 0);
	pol->kind = kind;
	vscnprintf(pol->reason, sizeof(pol->reason), fmt, args);
	/* Readers of /proc/saakm/errors see the reason only once complete. */
	smp_store_release(&pol->reason_set, true);
	if (static_branch_unlikely(&saakm_panic_key))
		panic("saakm: policy %s (id %d) error: %s: %s", pol->ops.name,
		      pol->id, saakm_eject_kind_name(kind), pol->reason);
	preempt_disable();
	printk_deferred_enter();
	pr_err("saakm: policy %s (id %d) error: %s: %s\n", pol->ops.name, pol->id,
	       saakm_eject_kind_name(kind), pol->reason);
	printk_deferred_exit();
	preempt_enable();
	irq_work_queue(&pol->eject_irq_work);
}

/**
 * saakm_eject - eject a policy for a fault the class detected
 * @pol: the faulty policy
 * @kind: what found the fault (SAAKM_EJECT_KINDS() in <uapi/linux/saakm.h>)
 * @fmt: printf-style details
 *
 * The first error wins: the policy is bypassed from now on, new tasks are
 * refused, and its tasks are moved back to SCHED_NORMAL from a workqueue.
 * The kind and details are logged and shown in /proc/saakm/errors.
 * Callable in any context, including with rq locks held.
 */
void saakm_eject(struct saakm_policy *pol, enum saakm_eject_kind kind, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	saakm_veject(pol, kind, fmt, args);
	va_end(args);
}

/**
 * saakm_policy_error - report a bug from inside a policy and eject it
 * @pol: the faulty policy
 * @fmt: printf-style reason, shown in the kernel log and /proc/saakm/errors
 *
 * Same effect as a fault found by the class (see saakm_eject()): the class
 * stops calling the policy and moves its tasks back to SCHED_NORMAL.
 * Callable from any callback.
 */
void saakm_policy_error(struct saakm_policy *pol, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	saakm_veject(pol, SAAKM_EJECT_ERROR, fmt, args);
	va_end(args);
}
EXPORT_SYMBOL_GPL(saakm_policy_error);

/* Set up @pol's ejection machinery, at registration. */
void saakm_eject_init(struct saakm_policy *pol)
{
	init_irq_work(&pol->eject_irq_work, saakm_eject_irq_workfn);
	INIT_WORK(&pol->eject_work, saakm_eject_workfn);
}
