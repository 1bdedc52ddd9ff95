/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault detection (saakm_safety.c): the stall watchdog and tick check, and
 * the class running an ejected policy's tasks itself.
 */
#ifndef _KERNEL_SCHED_SAAKM_SAFETY_H
#define _KERNEL_SCHED_SAAKM_SAFETY_H

#include "saakm_base.h"

/* Stall timeout for every policy, /sys/kernel/saakm/watchdog_timeout_ms. */
extern unsigned int saakm_watchdog_timeout_ms;
void saakm_check_cpu_stall(struct saakm_policy *pol, int cpu);
struct task_struct *saakm_bypass_pick(struct saakm_policy *pol, int cpu);
void saakm_safety_init(struct saakm_policy *pol);
void saakm_watchdog_kick(void);

#endif /* _KERNEL_SCHED_SAAKM_SAFETY_H */
