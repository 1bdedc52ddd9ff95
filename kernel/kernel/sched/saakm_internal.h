/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SaaKM class core: declarations shared by kernel/sched/saakm*.c only.
 * The scheduler core sees kernel/sched/saakm.h instead.
 */
#ifndef _KERNEL_SCHED_SAAKM_INTERNAL_H
#define _KERNEL_SCHED_SAAKM_INTERNAL_H

#include <linux/irq_work.h>
#include <linux/saakm.h>
#include <linux/workqueue.h>
#include <trace/events/saakm.h>

#define SAAKM_POLICY_STATE_ENUM(NAME, name)	SAAKM_POLICY_##NAME,

/* A policy's life: SAAKM_POLICY_STATES() in <uapi/linux/saakm.h>. */
enum saakm_policy_state {
	SAAKM_POLICY_STATES(SAAKM_POLICY_STATE_ENUM)
};

/* One policy's per-CPU bookkeeping. */
struct saakm_policy_pcpu {
	unsigned int		nr_ready;	/* READY tasks placed on this CPU */
	struct list_head	preempted;	/* RUNNING tasks parked by the class */
	unsigned long		next_balance;	/* jiffies of the next balancing_select() */
	unsigned long		last_pick;	/* jiffies: last pick, or first READY task */
	bool			balance_due;
	bool			entered;	/* core_entry() ran, core_exit() not yet */
	u64			picks;		/* tasks schedule() returned here */
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
	raw_spinlock_t		lock;
	atomic_t		nr_tasks;
	atomic_t		nr_bad_transitions;
	struct irq_work		eject_irq_work;	/* saakm_safety.c */
	struct work_struct	eject_work;
	bool			reason_set;	/* @kind and @reason are complete */
	const char		*kind;
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
extern unsigned int saakm_watchdog_timeout_ms;

/*
 * Per-CPU state of the class, beside struct rq so that the core's rq is
 * unchanged. Protected by the CPU's rq lock.
 */
struct saakm_cpu {
	bool			idle;		/* running the idle task */
	bool			live;		/* between cpu_starting and cpu_dying */
	unsigned int		nr_queued;	/* SaaKM tasks enqueued here */
	struct irq_work		balance_work;	/* periodic balancing, out of the tick */
	struct sched_dl_entity	server;		/* guaranteed share under RT/DL load */
};

DECLARE_PER_CPU(struct saakm_cpu, saakm_cpus);

/* Deadline server parameters, /sys/kernel/saakm/server_{runtime,period}_us. */
extern u64 saakm_server_runtime_ns, saakm_server_period_ns;
int saakm_server_set_params(u64 runtime_ns, u64 period_ns);

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

DECLARE_STATIC_KEY_FALSE(saakm_log_calls_key);

void saakm_log_call(struct saakm_policy *pol, enum saakm_event ev, int cpu);

/* Count event @ev of @pol on @cpu, about task @p (or NULL), and trace it. */
static inline void saakm_count(struct saakm_policy *pol, enum saakm_event ev,
			       int cpu, struct task_struct *p)
{
	this_cpu_inc(pol->pcpu->events[ev]);
	trace_saakm_event(pol->ops.name, p ? p->pid : -1, cpu, ev);
	if (static_branch_unlikely(&saakm_log_calls_key))
		saakm_log_call(pol, ev, cpu);
}

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
};

DECLARE_PER_CPU(struct saakm_ctx, saakm_ctx);

static inline void saakm_ctx_set(enum saakm_event ev, struct task_struct *p)
{
	__this_cpu_write(saakm_ctx.ev, ev);
	__this_cpu_write(saakm_ctx.p, p);
}

/*
 * Call callback @fn of @pol, if the policy has one, about @cpu and task @tsk
 * (NULL for a CPU event), and count its event: the event is named once, by
 * its callback. __saakm_call() calls even an ejected policy (core_entry,
 * core_exit, free_metadata: nothing may leak); saakm_call() does not, and
 * saakm_call_ret() then gives @dflt, the value of a missing callback. This is
 * all there is to bypass in the hooks: see saakm_safety.c.
 */
#define __saakm_call(pol, cpu, tsk, fn, args...)		\
	do {							\
		if ((pol)->ops.fn) {				\
			saakm_count(pol, __saakm_ev_##fn, cpu, tsk); \
			saakm_ctx_set(__saakm_ev_##fn, tsk);	\
			(pol)->ops.fn(pol, ##args);		\
			saakm_ctx_set(SAAKM_NR_EVENTS, NULL);	\
		}						\
	} while (0)

#define saakm_call(pol, cpu, tsk, fn, args...)			\
	do {							\
		if (likely(!saakm_bypassing(pol)))		\
			__saakm_call(pol, cpu, tsk, fn, ##args);	\
	} while (0)

#define saakm_call_ret(pol, cpu, tsk, dflt, fn, args...)	\
	({							\
		typeof((pol)->ops.fn(pol, ##args)) __ret = (dflt); \
								\
		if ((pol)->ops.fn && likely(!saakm_bypassing(pol))) { \
			saakm_count(pol, __saakm_ev_##fn, cpu, tsk); \
			saakm_ctx_set(__saakm_ev_##fn, tsk);	\
			__ret = (pol)->ops.fn(pol, ##args);	\
			saakm_ctx_set(SAAKM_NR_EVENTS, NULL);	\
		}						\
		__ret;						\
	})

const char *saakm_state_name(enum saakm_task_state state);
void saakm_eject(struct saakm_policy *pol, const char *kind, const char *fmt, ...)
	__printf(3, 4);
unsigned long saakm_timeout(struct saakm_policy *pol);
bool saakm_cpu_free_for(struct saakm_policy *pol, int cpu);
struct task_struct *saakm_bypass_pick(struct saakm_policy *pol, int cpu);
void saakm_force_state(struct task_struct *p, enum saakm_task_state state);
void saakm_detach(struct task_struct *p);
void saakm_core_entry(struct saakm_policy *pol, int cpu);
void saakm_core_exit(struct saakm_policy *pol, int cpu);
void saakm_rq_insert(struct saakm_rq *rq, struct task_struct *p);
void saakm_rq_remove(struct task_struct *p);
void saakm_park(struct task_struct *p, int cpu, bool tail);
void saakm_unpark(struct task_struct *p, int cpu);
void saakm_check_cpu_stall(struct saakm_policy *pol, int cpu);
void saakm_drain(struct saakm_policy *pol);
void saakm_safety_init(struct saakm_policy *pol);
void saakm_watchdog_kick(void);
extern struct mutex saakm_mutex;
#endif /* _KERNEL_SCHED_SAAKM_INTERNAL_H */
