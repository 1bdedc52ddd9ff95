/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The class's side of the runqueues (saakm_rq.c): policies never insert or
 * remove tasks themselves; saakm_change_state() does.
 */
#ifndef _KERNEL_SCHED_SAAKM_RQ_H
#define _KERNEL_SCHED_SAAKM_RQ_H

void saakm_rq_insert(struct saakm_rq *rq, struct task_struct *p);
void saakm_rq_remove(struct task_struct *p);
extern bool saakm_rq_importing;
extern unsigned int saakm_rq_gen;
extern unsigned int saakm_rq_adopted;

#endif /* _KERNEL_SCHED_SAAKM_RQ_H */
