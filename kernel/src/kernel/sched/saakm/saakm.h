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
/* Some policy listens to idle transitions (enter_idle or exit_idle). */
DECLARE_STATIC_KEY_FALSE(saakm_idle_key);
/* This CPU runs its idle task; kept while any policy is registered. */
DECLARE_PER_CPU(bool, saakm_idle);
/* rq_clock_task() when this CPU last went idle. */
DECLARE_PER_CPU(u64, saakm_idle_start);
/*
 * Bumped when the first policy registers: until its next transition, a
 * CPU's flag and stamp are from before (saakm_idle_seen is older).
 */
extern unsigned int saakm_idle_epoch;
DECLARE_PER_CPU(unsigned int, saakm_idle_seen);

static inline bool saakm_enabled(void)
{
	return static_branch_unlikely(&saakm_active_key);
}

static inline bool saakm_balancing(void)
{
	return static_branch_unlikely(&saakm_balance_key);
}

/*
 * Tasks in all policies. With none, the class has nothing to pick or pull,
 * and the core's pick paths skip it: a registered policy with no task then
 * costs fair tasks nothing there (it cost EEVDF 4% on a 2-CPU pipe).
 */
extern atomic_t saakm_nr_tasks;

static inline bool saakm_has_tasks(void)
{
	return saakm_enabled() && atomic_read(&saakm_nr_tasks);
}

/*
 * Fair found nothing and the CPU is about to idle: balancing policies may
 * pull work first. Only here, so that fair tasks keep the core's fast path
 * while a balancing policy is registered. True if the CPU now has work.
 */
static inline bool saakm_balance_idle(struct rq *rq, struct rq_flags *rf)
{
	return saakm_balancing() && atomic_read(&saakm_nr_tasks) &&
	       saakm_sched_class.balance(rq, rq->donor, rf);
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
struct task_struct *saakm_pick_only(struct rq *rq);

static inline void saakm_tick(struct rq *rq)
{
	if (saakm_enabled())
		__saakm_tick(rq);
}
void saakm_update_idle(struct rq *rq, bool idle);
void saakm_server_idle(struct rq *rq);

/*
 * The idle task is about to run (@idle) or to stop. The flag is kept while
 * any policy is registered, so that what a policy hears is exact from its
 * first transition on; the policies are walked only while one of them
 * listens, not on every idle entry and exit of a fair task's CPU. The idle
 * time goes to the class's deadline server while policies have tasks,
 * unless the CPU went idle before the first policy registered: that stamp
 * may be from long ago, and the server would count busy time as idle.
 */
static inline void saakm_set_idle(struct rq *rq, bool idle)
{
	unsigned int epoch;
	bool fresh;

	if (!saakm_enabled())
		return;
	epoch = READ_ONCE(saakm_idle_epoch);
	fresh = __this_cpu_read(saakm_idle_seen) == epoch;
	if (fresh && __this_cpu_read(saakm_idle) == idle)
		return;
	__this_cpu_write(saakm_idle, idle);
	__this_cpu_write(saakm_idle_seen, epoch);
	if (idle)
		__this_cpu_write(saakm_idle_start, rq_clock_task(rq));
	else if (fresh && atomic_read(&saakm_nr_tasks))
		saakm_server_idle(rq);
	if (static_branch_unlikely(&saakm_idle_key))
		saakm_update_idle(rq, idle);
}
void saakm_cpu_starting(unsigned int cpu);
void saakm_cpu_dying(struct rq *rq);
void saakm_attach_root(struct rq *rq);

#else /* !CONFIG_SCHED_CLASS_SAAKM */

static inline bool saakm_enabled(void) { return false; }
static inline bool saakm_balancing(void) { return false; }
static inline bool saakm_has_tasks(void) { return false; }
static inline bool saakm_balance_idle(struct rq *rq, struct rq_flags *rf) { return false; }
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
static inline void saakm_set_idle(struct rq *rq, bool idle) {}
static inline void saakm_cpu_starting(unsigned int cpu) {}
static inline void saakm_cpu_dying(struct rq *rq) {}
static inline void saakm_attach_root(struct rq *rq) {}

#endif /* CONFIG_SCHED_CLASS_SAAKM */
#endif /* _KERNEL_SCHED_SAAKM_H */
