/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/sched.h> (policy subset): the part of task_struct a
 * policy may read (pid, comm, cpus_ptr, nr_cpus_allowed, prio, se's
 * runtime, saakm), task_cpu() and task_nice(). The simulation owns every
 * field; policies only read them (and p->saakm through the API).
 */
#ifndef USIM_SHIM_SCHED_H
#define USIM_SHIM_SCHED_H

#include <usim/kapi.h>
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/sched/saakm.h>

#define TASK_COMM_LEN	16
#define MAX_NICE	19
#define MIN_NICE	-20
#define NICE_WIDTH	(MAX_NICE - MIN_NICE + 1)
#define MAX_RT_PRIO	100
#define DEFAULT_PRIO	(MAX_RT_PRIO + NICE_WIDTH / 2)
#define NICE_TO_PRIO(nice)	((nice) + DEFAULT_PRIO)
#define PRIO_TO_NICE(prio)	((prio) - DEFAULT_PRIO)

struct sched_entity {
	u64 sum_exec_runtime;
	u64 exec_start;
};

struct task_struct {
	pid_t			pid;
	pid_t			tgid;
	char			comm[TASK_COMM_LEN];
	int			prio;
	int			static_prio;
	int			normal_prio;
	unsigned int		policy;
	const struct cpumask	*cpus_ptr;
	struct cpumask		cpus_mask;
	int			nr_cpus_allowed;
	struct sched_entity	se;
	struct sched_saakm_entity saakm;
	/* The simulation's own: not for policies. */
	int			usim_cpu;	/* task_cpu() */
	int			usim_flags;
	void			*usim_priv;	/* the driver's (usim_class) */
};

static inline unsigned int task_cpu(const struct task_struct *p)
{
	return p->usim_cpu;
}

static inline int task_nice(const struct task_struct *p)
{
	return PRIO_TO_NICE(p->static_prio);
}

#endif /* USIM_SHIM_SCHED_H */
