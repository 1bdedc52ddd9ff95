/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live upgrade (saakm_upgrade.c): a new version of a policy takes over the
 * registered one, and the old version's husk waits for its module's exit.
 */
#ifndef _KERNEL_SCHED_SAAKM_UPGRADE_H
#define _KERNEL_SCHED_SAAKM_UPGRADE_H

#include "saakm_base.h"

int saakm_upgrade(struct saakm_policy *pol, struct saakm_policy *next);
struct saakm_policy *saakm_husk_take(struct saakm_policy *pol, struct module *owner);

#endif /* _KERNEL_SCHED_SAAKM_UPGRADE_H */
