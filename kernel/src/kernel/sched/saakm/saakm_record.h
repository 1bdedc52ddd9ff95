/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder (saakm_record.c): what a recorded policy was called with,
 * returned and did, into per-CPU buffers that replay reads; and the
 * rate-limited call log of /sys/kernel/saakm/log_calls.
 */
#ifndef _KERNEL_SCHED_SAAKM_RECORD_H
#define _KERNEL_SCHED_SAAKM_RECORD_H

#include "saakm_base.h"

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

struct proc_dir_entry;
int saakm_record_proc_init(struct proc_dir_entry *dir);

DECLARE_STATIC_KEY_FALSE(saakm_log_calls_key);
void saakm_log_call(struct saakm_policy *pol, enum saakm_event ev, int cpu);

#endif /* _KERNEL_SCHED_SAAKM_RECORD_H */
