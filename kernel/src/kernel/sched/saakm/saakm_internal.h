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
#include <asm/local.h>
#include <trace/events/saakm.h>
#include <uapi/linux/saakm_replay.h>

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
	unsigned long		busy;		/* jiffies the CPU ran others: saakm_wait_clock() */
	unsigned long		busy_seen;	/* jiffies when @busy was last brought up to date */
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
	bool			recording;	/* saakm_record.c */
	atomic64_t		rec_seq;
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

/* The recorder (saakm_record.c): SAAKM_REC_KINDS() in <uapi/linux/saakm_replay.h>. */
#define SAAKM_REC_KIND_ENUM(NAME, name)	SAAKM_REC_##NAME,
enum saakm_rec_kind {
	SAAKM_REC_KINDS(SAAKM_REC_KIND_ENUM)
};

/*
 * One CPU's records, in the order it wrote them (saakm_record.c). @recs
 * and @cap change only under saakm_record_mutex while nothing is recorded.
 * @len counts the slots this CPU tried to take since recording started,
 * kept ones (the first @cap) and dropped ones. @call is the slot of the
 * CALL of the recorded callback running on this CPU (callbacks never
 * nest), for its first STATE and its RET, or NULL.
 */
struct saakm_rec_cpu {
	struct saakm_rec_slot	*recs;
	unsigned long		cap;
	local_t			len;
	struct saakm_rec_slot	*call;
};

DECLARE_PER_CPU(struct saakm_rec_cpu, saakm_rec_cpu);

/*
 * Take the next slot of this CPU for record @seq of kind @kind, and fill in
 * what every record has but its time. Preemption off. Return: the slot, or
 * NULL if the array is full (the record is counted as dropped).
 */
static __always_inline struct saakm_rec_slot *
saakm_rec_take(struct saakm_rec_cpu *rc, u64 seq, enum saakm_rec_kind kind, int ev,
	       int cpu, struct task_struct *p)
{
	unsigned long i = local_inc_return(&rc->len) - 1;
	struct saakm_rec_slot *r;

	if (unlikely(i >= rc->cap))
		return NULL;
	r = &rc->recs[i];
	r->seq = seq;
	r->pid = p ? p->pid : -1;
	r->cpu = cpu;
	r->kind = kind;
	r->ev = ev;
	r->on_cpu = smp_processor_id();
	/* what they do not say is used stays as it is (zeroed at allocation) */
	r->ret_delta = 0;
	r->st_delta = 0;
	return r;
}

/*
 * The records' clock: sched_clock(), read directly. local_clock() adds a
 * constant to it where it is stable (x86 with a stable TSC), and a filter
 * per CPU where not, for some 16 more instructions a call: 1.3% of a pipe
 * round trip, recorded. Replay does not need times; viewing does not need
 * the filter.
 */
static __always_inline u64 saakm_rec_clock(void)
{
	return sched_clock_noinstr();
}

void __saakm_rec_read(struct saakm_policy *pol, int which, int cpu, u64 val);
void __saakm_rec(struct saakm_policy *pol, enum saakm_rec_kind kind, int ev,
		 int cpu, struct task_struct *p, int a, int b, u64 c);
void __saakm_rec_ret(struct saakm_policy *pol, int ev, int cpu, struct task_struct *p,
		     int value, u64 seq);
void __saakm_rec_state(struct saakm_policy *pol, u64 seq, int cpu, struct task_struct *p,
		       int new, int rq, int old);
int saakm_record_set(int id);
int saakm_record_get(void);
void saakm_record_forget(struct saakm_policy *pol);

/*
 * The first saakm_change_state() of a recorded call goes into the CALL's
 * slot: a seq number and six stores, no timestamp (the CALL's serves).
 * The rest, and those outside a call, take a slot of their own.
 */
static __always_inline void saakm_rec_state(struct saakm_policy *pol, int cpu,
					    struct task_struct *p, int new, int rq, int old)
{
	struct saakm_rec_slot *r;
	u64 seq = 0;

	preempt_disable_notrace();
	r = __this_cpu_read(saakm_rec_cpu.call);
	if (r && !r->st_delta && READ_ONCE(pol->recording)) {
		seq = atomic64_inc_return(&pol->rec_seq);
		if (likely(seq - r->seq <= U16_MAX)) {
			r->st_delta = seq - r->seq;
			r->st_pid = p->pid;
			r->st_cpu = cpu;
			r->st_rq = rq;
			r->st_new = new;
			r->st_old = old;
			goto out;
		}
	}
	__saakm_rec_state(pol, seq, cpu, p, new, rq, old);
out:
	preempt_enable_notrace();
}

static __always_inline void saakm_rec(struct saakm_policy *pol, enum saakm_rec_kind kind,
				      int ev, int cpu, struct task_struct *p, int a,
				      int b, u64 c)
{
	if (!static_branch_unlikely(&saakm_recording_key))
		return;
	if (kind == SAAKM_REC_STATE)
		saakm_rec_state(pol, cpu, p, a, b, c);
	else
		__saakm_rec(pol, kind, ev, cpu, p, a, b, c);
}

/* What a callback returned, as recorded: a CPU, or the pid of a task. */
static inline int saakm_rec_value_of(bool is_task, unsigned long v)
{
	if (is_task)
		return v ? ((struct task_struct *)v)->pid : -1;
	return (long)v;
}

#define saakm_rec_value(v)						\
	saakm_rec_value_of(__builtin_types_compatible_p(typeof(v), struct task_struct *), \
			   (unsigned long)(v))

/*
 * The CALL of callback @ev: a slot with the call's only timestamp, which
 * the call's first STATE and its RET will share (saakm_rec_state(),
 * saakm_rec_ret()). The task's nice value and affinity travel with it.
 * Inline, as the other two: each is called once or twice per context
 * switch, and a call to a function of its own cost about a tenth more.
 */
static __always_inline void saakm_rec_call_one(struct saakm_policy *pol, int ev, int cpu,
					       struct task_struct *p)
{
	struct saakm_rec_cpu *rc;
	struct saakm_rec_slot *r;

	preempt_disable_notrace();
	rc = this_cpu_ptr(&saakm_rec_cpu);
	rc->call = NULL;
	if (!READ_ONCE(pol->recording))
		goto out;
	r = saakm_rec_take(rc, atomic64_inc_return(&pol->rec_seq), SAAKM_REC_CALL, ev, cpu, p);
	if (!r)
		goto out;
	/* balance_pick(src, dst) runs on dst (saakm_pull()); @cpu is src */
	r->a = ev == SAAKM_EV_BALANCE_PICK ? smp_processor_id() : -1;
	r->b = p ? task_nice(p) : 0;
	r->c = p ? cpumask_bits(p->cpus_ptr)[0] : 0;
	rc->call = r;
	r->ts_ns = saakm_rec_clock();
out:
	preempt_enable_notrace();
}

#define saakm_rec_call(pol, ev, cpu, tsk)				\
	do {								\
		if (static_branch_unlikely(&saakm_recording_key))	\
			saakm_rec_call_one(pol, ev, cpu, tsk);		\
	} while (0)

/*
 * A RET goes into its CALL's slot: a seq number and two stores. It takes
 * its seq after everything the callback did. One of its own if its CALL
 * was not recorded, or came too many records before it.
 */
static __always_inline void saakm_rec_ret_one(struct saakm_policy *pol, int ev, int cpu,
					      struct task_struct *p, int value)
{
	struct saakm_rec_slot *r;
	u64 seq = 0;

	preempt_disable_notrace();
	r = __this_cpu_read(saakm_rec_cpu.call);
	__this_cpu_write(saakm_rec_cpu.call, NULL);
	/*
	 * @r is this callback's CALL: every CALL sets or clears it, and
	 * callbacks do not nest. Recording may have stopped since; the RET
	 * is kept all the same (the arrays are read a grace period later).
	 */
	if (r) {
		seq = atomic64_inc_return(&pol->rec_seq);
		if (likely(seq - r->seq <= U16_MAX)) {
			r->ret = value;
			r->ret_delta = seq - r->seq;
			goto out;
		}
	}
	__saakm_rec_ret(pol, ev, cpu, p, value, seq);
out:
	preempt_enable_notrace();
}

#define saakm_rec_ret(pol, ev, cpu, tsk, value)				\
	do {								\
		if (static_branch_unlikely(&saakm_recording_key))	\
			saakm_rec_ret_one(pol, ev, cpu, tsk, value);	\
	} while (0)

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
	struct rq		*placing;	/* locked rq of a new_/unblock_place */
	struct rq		*kick_due;	/* and kicked that rq's CPU */
};

DECLARE_PER_CPU(struct saakm_ctx, saakm_ctx);

static inline void saakm_ctx_set(enum saakm_event ev, struct task_struct *p)
{
	__this_cpu_write(saakm_ctx.ev, ev);
	__this_cpu_write(saakm_ctx.p, p);
}

/*
 * A value a callback read from the kernel (saakm_lib.c), recorded so that
 * replay can give the policy the same. The class's own reads are not.
 */
static __always_inline void saakm_rec_input(int which, struct task_struct *p, int dst,
					    u64 val)
{
	if (static_branch_unlikely(&saakm_recording_key) && p->saakm.policy &&
	    __this_cpu_read(saakm_ctx.ev) != SAAKM_NR_EVENTS)
		__saakm_rec(p->saakm.policy, SAAKM_REC_INPUT, which, -1, p, dst, 0, val);
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
			saakm_rec_call(pol, __saakm_ev_##fn, cpu, tsk); \
			(pol)->ops.fn(pol, ##args);		\
			saakm_rec_ret(pol, __saakm_ev_##fn, cpu, tsk, 0); \
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
			saakm_rec_call(pol, __saakm_ev_##fn, cpu, tsk); \
			__ret = (pol)->ops.fn(pol, ##args);	\
			saakm_rec_ret(pol, __saakm_ev_##fn, cpu, tsk,	\
				      saakm_rec_value(__ret));		\
			saakm_ctx_set(SAAKM_NR_EVENTS, NULL);	\
		}						\
		__ret;						\
	})

const char *saakm_state_name(enum saakm_task_state state);
void saakm_eject(struct saakm_policy *pol, const char *kind, const char *fmt, ...)
	__printf(3, 4);
unsigned long saakm_timeout(struct saakm_policy *pol);
struct task_struct *saakm_bypass_pick(struct saakm_policy *pol, int cpu);
void saakm_force_state(struct task_struct *p, enum saakm_task_state state);
void saakm_detach(struct task_struct *p);
void saakm_core_entry(struct saakm_policy *pol, int cpu);
void saakm_core_exit(struct saakm_policy *pol, int cpu);
#include "saakm_rq.h"
void saakm_park(struct task_struct *p, int cpu, bool tail);
void saakm_unpark(struct task_struct *p, int cpu);
void saakm_check_cpu_stall(struct saakm_policy *pol, int cpu);
void saakm_drain(struct saakm_policy *pol);
void saakm_safety_init(struct saakm_policy *pol);
void saakm_watchdog_kick(void);
extern struct mutex saakm_mutex;
#endif /* _KERNEL_SCHED_SAAKM_INTERNAL_H */
