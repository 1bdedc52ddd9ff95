/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the class calls a policy: every call is counted, traced, recorded
 * and made inside its callback context, and none reaches an ejected
 * policy except those that release what it holds.
 */
#ifndef _KERNEL_SCHED_SAAKM_CALL_H
#define _KERNEL_SCHED_SAAKM_CALL_H

#include "saakm_record.h"

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

#endif /* _KERNEL_SCHED_SAAKM_CALL_H */
