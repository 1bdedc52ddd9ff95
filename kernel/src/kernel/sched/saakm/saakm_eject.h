/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ejection (saakm_eject.c): a faulty policy is reported, bypassed and
 * drained of its tasks.
 */
#ifndef _KERNEL_SCHED_SAAKM_EJECT_H
#define _KERNEL_SCHED_SAAKM_EJECT_H

#include "saakm_base.h"

DECLARE_STATIC_KEY_FALSE(saakm_panic_key);
void saakm_eject(struct saakm_policy *pol, enum saakm_eject_kind kind, const char *fmt, ...)
	__printf(3, 4);
void saakm_drain(struct saakm_policy *pol);
void saakm_eject_init(struct saakm_policy *pol);

#endif /* _KERNEL_SCHED_SAAKM_EJECT_H */
