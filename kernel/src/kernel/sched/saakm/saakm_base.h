/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The class's objects, seen by every file of kernel/sched/saakm/: a
 * registered policy and its per-CPU part, the class's per-CPU state, the
 * list of policies, and the callback context. The scheduler core sees
 * saakm.h instead.
 */
#ifndef _KERNEL_SCHED_SAAKM_BASE_H
#define _KERNEL_SCHED_SAAKM_BASE_H

#include <linux/irq_work.h>
#include <linux/saakm.h>
#include <linux/workqueue.h>
#include <asm/local.h>
#include <trace/events/saakm.h>
#include <uapi/linux/saakm_replay.h>
#include "saakm_check.h"
#include "saakm_rq.h"

#define SAAKM_POLICY_STATE_ENUM(NAME, name)	SAAKM_POLICY_##NAME,

/* A policy's life: SAAKM_POLICY_STATES() in <uapi/linux/saakm.h>. */
enum saakm_policy_state {
	SAAKM_POLICY_STATES(SAAKM_POLICY_STATE_ENUM)
};

/*
 * Whether the class keeps the wake-to-run histograms of /proc/saakm/cpus
 * (sysfs wake_stats, on by default; saakm_stats.c).
 */
DECLARE_STATIC_KEY_TRUE(saakm_wake_stats_key);

/* One policy's per-CPU bookkeeping. */
struct saakm_policy_pcpu {
	unsigned int		nr_ready;	/* READY tasks placed on this CPU */
	struct list_head	preempted;	/* RUNNING tasks parked by the class */
	unsigned long		next_balance;	/* jiffies of the next balancing_select() */
	unsigned long		last_pick;	/* jiffies: last pick, or first READY task */
	unsigned long		busy;		/* jiffies the CPU ran others: saakm_wait_clock() */
	unsigned long		busy_seen;	/* jiffies when @busy was last brought up to date */
	bool			balance_due;
	bool			entered;	/* core_entry() ran, core_exit() not yet */
	u64			picks;		/* tasks schedule() returned here */
	u64			wake_sum_ns;	/* wake-to-run waits ended here */
	u64			wake_hist[SAAKM_WAKE_HIST_BUCKETS];
	u64			events[SAAKM_NR_EVENTS];
};

/*
 * A registered policy instance: the module's ops, copied, and the class's
 * own state. Policies see only the pointer.
 */
struct saakm_policy {
	struct saakm_ops	ops;
	void			*priv;		/* saakm_priv() */
	struct module		*owner;
	int			id;		/* shown in /proc, used by sched_setattr */
	int			slot;		/* precedence: lower slots pick first */
	int			state;		/* enum saakm_policy_state */
	struct saakm_policy_pcpu __percpu *pcpu;
	struct list_head	list;		/* saakm_policies, in slot order */
	struct list_head	tasks;		/* attached tasks, under @lock */
	bool			recording;	/* saakm_record.c */
	atomic64_t		rec_seq;
	raw_spinlock_t		lock;
	atomic_t		nr_tasks;
	atomic_t		nr_bad_transitions;
	struct irq_work		eject_irq_work;	/* saakm_safety.c */
	struct work_struct	eject_work;
	unsigned int		generation;	/* upgrades so far (saakm_upgrade.c) */
	u64			upgrade_ns;	/* the last upgrade's stop of every CPU */
	u64			upgrade_swap_ns; /* and the swap's own work in it */
	struct saakm_policy	*live;		/* replaced: the policy it went on as */
	bool			reason_set;	/* @kind and @reason are complete */
	enum saakm_eject_kind	kind;
	char			reason[128];
};

/* p->saakm.flags */
#define SAAKM_TF_QUEUED		0x1	/* enqueued in the class (counted in nr_running) */
#define SAAKM_TF_ROTATE		0x2	/* bypass: go to the tail when leaving the CPU */

/* An ejected policy is no longer called; the class runs its tasks. */
static inline bool saakm_bypassing(struct saakm_policy *pol)
{
	return READ_ONCE(pol->state) == SAAKM_POLICY_EJECTED;
}

static inline bool saakm_is_ready(enum saakm_task_state state)
{
	return state == SAAKM_READY || state == SAAKM_READY_TICK;
}

extern struct list_head saakm_policies;

/*
 * Registered policies by slot. Slots grow with registration order, so the
 * lowest slot with work on a CPU is the policy that picks there.
 */
extern struct saakm_policy __rcu *saakm_slots[SAAKM_MAX_POLICIES];

/* Per CPU: bit n set while the policy in slot n has a READY or parked task. */
DECLARE_PER_CPU(u64, saakm_work);

/* Refresh @pol's bit in @cpu's work mask; rq(@cpu) locked. */
static inline void saakm_note_work(struct saakm_policy *pol, int cpu)
{
	struct saakm_policy_pcpu *pc = per_cpu_ptr(pol->pcpu, cpu);
	u64 *work = per_cpu_ptr(&saakm_work, cpu);

	if (pc->nr_ready || !list_empty(&pc->preempted))
		*work |= BIT_ULL(pol->slot);
	else
		*work &= ~BIT_ULL(pol->slot);
}

/*
 * The clock a task of @pol waiting on @cpu is timed by: jiffies, less the
 * time @cpu spent running a higher class or an earlier policy, which is not
 * the policy's doing. p->saakm.ready_at is read on it (saakm_safety.c).
 */
static inline unsigned long saakm_wait_clock(struct saakm_policy *pol, int cpu)
{
	return jiffies - READ_ONCE(per_cpu_ptr(pol->pcpu, cpu)->busy);
}

/*
 * Per-CPU state of the class, beside struct rq so that the core's rq is
 * unchanged. Protected by the CPU's rq lock.
 */
struct saakm_cpu {
	bool			live;		/* between cpu_starting and cpu_dying */
	unsigned int		nr_queued;	/* SaaKM tasks enqueued here */
	struct irq_work		balance_work;	/* periodic balancing, out of the tick */
	struct irq_work		kick_work;	/* carries out saakm_kick_cpu() here */
	unsigned long		preempt_slots;	/* policies asking preempt() here */
	struct sched_dl_entity	server;		/* guaranteed share under RT/DL load */
};

DECLARE_PER_CPU(struct saakm_cpu, saakm_cpus);

/*
 * Messages from scheduler paths: printk() may wake the console owner and
 * take an rq lock we hold, so defer, and rate-limit what a buggy policy can
 * repeat.
 */
#define saakm_printk_ratelimited(fmt, ...)					\
	do {									\
		static DEFINE_RATELIMIT_STATE(_rs, DEFAULT_RATELIMIT_INTERVAL,	\
					      DEFAULT_RATELIMIT_BURST);		\
		if (__ratelimit(&_rs))						\
			printk_deferred(fmt, ##__VA_ARGS__);			\
	} while (0)

#define for_each_saakm_policy(pol) \
	list_for_each_entry_rcu(pol, &saakm_policies, list, rcu_read_lock_any_held())

/*
 * The policy callback running on this CPU, and the task it was called for
 * (block and terminate only). saakm_change_state() reads it: only block()
 * may block a task, only terminate() may terminate one, only balance_pick()
 * may start a migration. Callbacks run with interrupts off and never nest,
 * so one slot per CPU is enough.
 */
struct saakm_ctx {
	enum saakm_event	ev;	/* SAAKM_NR_EVENTS outside any callback */
	struct task_struct	*p;
	struct rq		*placing;	/* locked rq of a new_/unblock_place */
	struct rq		*kick_due;	/* and kicked that rq's CPU */
};

DECLARE_PER_CPU(struct saakm_ctx, saakm_ctx);

static inline void saakm_ctx_set(enum saakm_event ev, struct task_struct *p)
{
	__this_cpu_write(saakm_ctx.ev, ev);
	__this_cpu_write(saakm_ctx.p, p);
}

/* Held to register, unregister and eject policies, and to walk them. */
extern struct mutex saakm_mutex;

#endif /* _KERNEL_SCHED_SAAKM_BASE_H */
