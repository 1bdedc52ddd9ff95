/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The class's deadline server (saakm_server.c): a guaranteed share of each
 * CPU for SaaKM tasks under RT and deadline load.
 */
#ifndef _KERNEL_SCHED_SAAKM_SERVER_H
#define _KERNEL_SCHED_SAAKM_SERVER_H

#include "saakm_base.h"

/* Deadline server parameters, /sys/kernel/saakm/server_{runtime,period}_us. */
extern u64 saakm_server_runtime_ns, saakm_server_period_ns;
void saakm_server_init(int cpu, dl_server_pick_f pick);
void saakm_server_start(struct rq *rq);
int saakm_server_set_params(u64 runtime_ns, u64 period_ns);

#endif /* _KERNEL_SCHED_SAAKM_SERVER_H */
