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
int saakm_server_set_params(u64 runtime_ns, u64 period_ns);

/*
 * A SaaKM task was enqueued on @rq (locked, clock updated). Inline: it is
 * on every enqueue.
 */
static inline void saakm_server_start(struct rq *rq)
{
	struct sched_dl_entity *dl_se = &per_cpu(saakm_cpus, cpu_of(rq)).server;

	if (dl_server_active(dl_se) || !cpu_online(cpu_of(rq)))
		return;
	/* First start: dl_server_start() would apply the fair server's values. */
	if (!dl_se->dl_server) {
		if (dl_server_apply_params(dl_se, READ_ONCE(saakm_server_runtime_ns),
					   READ_ONCE(saakm_server_period_ns), 1))
			return;
		dl_se->dl_server = 1;
		dl_se->dl_defer = 1;
		setup_new_dl_entity(dl_se);
	}
	dl_server_start(dl_se);
}

#endif /* _KERNEL_SCHED_SAAKM_SERVER_H */
