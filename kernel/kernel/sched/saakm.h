/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SaaKM class core, internal interface: what the scheduler core (core.c,
 * syscalls.c, idle.c, fork) calls, and what the saakm*.c files share.
 * Included at the end of kernel/sched/sched.h.
 */
#ifndef _KERNEL_SCHED_SAAKM_H
#define _KERNEL_SCHED_SAAKM_H

#ifdef CONFIG_SCHED_CLASS_SAAKM

struct saakm_policy;

extern const struct sched_class saakm_sched_class;

/* Any policy registered: the class has work to consider at all. */
DECLARE_STATIC_KEY_FALSE(saakm_active_key);
/* Some policy balances (newly_idle or balancing_select). */
DECLARE_STATIC_KEY_FALSE(saakm_balance_key);

static inline bool saakm_enabled(void)
{
	return static_branch_unlikely(&saakm_active_key);
}

static inline bool saakm_balancing(void)
{
	return static_branch_unlikely(&saakm_balance_key);
}

static inline bool saakm_policy(int policy)
{
	return policy == SCHED_SAAKM;
}

/* Hooks called by the scheduler core. */
void init_saakm_entity(struct task_struct *p);
bool saakm_fork(struct task_struct *p);
void saakm_cancel_fork(struct task_struct *p);
int saakm_check_setscheduler(struct task_struct *p, const struct sched_attr *attr,
			     int policy);
bool saakm_user_needs_priv(struct task_struct *p, const struct sched_attr *attr);
bool saakm_attr_changed(struct task_struct *p, const struct sched_attr *attr);
void saakm_setparams(struct task_struct *p, const struct sched_attr *attr, int policy);
void saakm_getparams(struct task_struct *p, struct sched_attr *attr);
int saakm_copy_attr_blob(struct sched_attr *attr, void **blob);
void __saakm_tick(struct rq *rq);

static inline void saakm_tick(struct rq *rq)
{
	if (saakm_enabled())
		__saakm_tick(rq);
}
void saakm_update_idle(struct rq *rq, bool idle);
void saakm_cpu_starting(unsigned int cpu);
void saakm_cpu_dying(struct rq *rq);
void saakm_attach_root(struct rq *rq);

#else /* !CONFIG_SCHED_CLASS_SAAKM */

static inline bool saakm_enabled(void) { return false; }
static inline bool saakm_balancing(void) { return false; }
static inline bool saakm_policy(int policy) { return false; }
static inline void init_saakm_entity(struct task_struct *p) {}
static inline bool saakm_fork(struct task_struct *p) { return false; }
static inline void saakm_cancel_fork(struct task_struct *p) {}
static inline int saakm_check_setscheduler(struct task_struct *p,
					   const struct sched_attr *attr,
					   int policy) { return 0; }
static inline bool saakm_user_needs_priv(struct task_struct *p,
					 const struct sched_attr *attr) { return false; }
static inline bool saakm_attr_changed(struct task_struct *p,
				      const struct sched_attr *attr) { return false; }
static inline void saakm_setparams(struct task_struct *p,
				   const struct sched_attr *attr, int policy) {}
static inline void saakm_getparams(struct task_struct *p, struct sched_attr *attr) {}
static inline void saakm_tick(struct rq *rq) {}
static inline void saakm_update_idle(struct rq *rq, bool idle) {}
static inline void saakm_cpu_starting(unsigned int cpu) {}
static inline void saakm_cpu_dying(struct rq *rq) {}
static inline void saakm_attach_root(struct rq *rq) {}

#endif /* CONFIG_SCHED_CLASS_SAAKM */
#endif /* _KERNEL_SCHED_SAAKM_H */
