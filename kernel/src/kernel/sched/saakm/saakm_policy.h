/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Policies and their tasks (saakm_policy.c): registration, joining and
 * leaving, CPUs coming and going.
 */
#ifndef _KERNEL_SCHED_SAAKM_POLICY_H
#define _KERNEL_SCHED_SAAKM_POLICY_H

#include "saakm_base.h"

void saakm_detach(struct task_struct *p);
void saakm_core_entry(struct saakm_policy *pol, int cpu);
void saakm_core_exit(struct saakm_policy *pol, int cpu);

#endif /* _KERNEL_SCHED_SAAKM_POLICY_H */
