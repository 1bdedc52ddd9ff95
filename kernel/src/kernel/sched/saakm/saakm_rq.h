/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The class's side of the runqueues (saakm_rq.c): policies never insert or
 * remove tasks themselves; saakm_change_state() does.
 */
#ifndef _KERNEL_SCHED_SAAKM_RQ_H
#define _KERNEL_SCHED_SAAKM_RQ_H

void saakm_rq_insert(struct saakm_rq *rq, struct task_struct *p);
void saakm_rq_remove(struct task_struct *p);
extern unsigned int saakm_rq_adopted;
void saakm_rq_import_begin(void);
void saakm_rq_import_end(void);
bool saakm_rq_left_behind(const struct task_struct *p);

#endif /* _KERNEL_SCHED_SAAKM_RQ_H */
