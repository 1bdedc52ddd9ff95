/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SaaKM class core: declarations shared by kernel/sched/saakm*.c only.
 * The scheduler core sees kernel/sched/saakm.h instead.
 */
#ifndef _KERNEL_SCHED_SAAKM_INTERNAL_H
#define _KERNEL_SCHED_SAAKM_INTERNAL_H

#include <linux/saakm.h>
#include <trace/events/saakm.h>

enum saakm_policy_state {
	SAAKM_POLICY_ENABLED,
	SAAKM_POLICY_DISABLING,		/* being unregistered, tasks leaving */
	SAAKM_POLICY_EJECTED,		/* stopped after an error */
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

static inline void __saakm_count(struct saakm_policy *pol, enum saakm_event ev, int cpu)
{
	this_cpu_inc(pol->pcpu->events[ev]);
	trace_saakm_event(pol->name, ev, cpu);
	if (static_branch_unlikely(&saakm_log_calls_key))
		saakm_log_call(pol, ev, cpu);
}

#define saakm_count(pol, ev, cpu) __saakm_count(pol, SAAKM_EV_##ev, cpu)

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

/* Call a policy callback and count the event. */
#define saakm_call(pol, ev, cpu, fn, args...)			\
	saakm_call_for(pol, ev, cpu, NULL, fn, ##args)

/* The same, for a callback about task @tsk (block, terminate). */
#define saakm_call_for(pol, ev, cpu, tsk, fn, args...)		\
	do {							\
		saakm_count(pol, ev, cpu);			\
		saakm_ctx_set(SAAKM_EV_##ev, tsk);		\
		(pol)->fn(args);				\
		saakm_ctx_set(SAAKM_NR_EVENTS, NULL);		\
	} while (0)

#define saakm_call_ret(pol, ev, cpu, fn, args...)		\
	({							\
		typeof((pol)->fn(args)) __ret;			\
								\
		saakm_count(pol, ev, cpu);			\
		saakm_ctx_set(SAAKM_EV_##ev, NULL);		\
		__ret = (pol)->fn(args);			\
		saakm_ctx_set(SAAKM_NR_EVENTS, NULL);		\
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
void saakm_park(struct task_struct *p, int cpu, bool tail);
#endif /* _KERNEL_SCHED_SAAKM_INTERNAL_H */
