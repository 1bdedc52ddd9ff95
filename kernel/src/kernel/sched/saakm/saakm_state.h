/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The task state machine (saakm_state.c): where a task of a policy stands,
 * and the class-owned lists of parked tasks.
 */
#ifndef _KERNEL_SCHED_SAAKM_STATE_H
#define _KERNEL_SCHED_SAAKM_STATE_H

#include "saakm_base.h"

DECLARE_STATIC_KEY_TRUE(saakm_check_key);
DECLARE_STATIC_KEY_TRUE(saakm_log_transitions_key);
void saakm_force_state(struct task_struct *p, enum saakm_task_state state);
void saakm_park(struct task_struct *p, int cpu, bool tail);
void saakm_unpark(struct task_struct *p, int cpu);
void saakm_check_placed(struct task_struct *p, int cpu, enum saakm_event ev);

#endif /* _KERNEL_SCHED_SAAKM_STATE_H */
