/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/sched/saakm.h>: the kernel's own header (struct
 * sched_saakm_entity, enum saakm_task_state from SAAKM_STATES()), taken
 * from the kernel tree so that the two never differ.
 */
#ifndef USIM_SHIM_SCHED_SAAKM_H
#define USIM_SHIM_SCHED_SAAKM_H

#include <usim/kapi.h>

#ifndef CONFIG_SCHED_CLASS_SAAKM
#define CONFIG_SCHED_CLASS_SAAKM 1
#endif
#ifndef __USIM_INNER
#define __USIM_INNER 1
#define __USIM_OUTER_sched_saakm
#endif
#include "../../../../../kernel/src/include/linux/sched/saakm.h"
#ifdef __USIM_OUTER_sched_saakm
#undef __USIM_OUTER_sched_saakm
#undef __USIM_INNER
#endif

#endif /* USIM_SHIM_SCHED_SAAKM_H */
