/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/saakm.h>: the SaaKM policy API in user space. This is
 * the kernel's own header (kernel/src/include/linux/saakm.h), included
 * as is, so struct saakm_ops and every prototype are the kernel's; the
 * functions it declares are implemented by libusim (tools/usim/usim.c).
 * Like in the kernel, it also brings the rest of the policy subset:
 * printk, slab, spinlock, percpu, hrtimer.
 */
#ifndef USIM_SHIM_SAAKM_H
#define USIM_SHIM_SAAKM_H

#include <usim/kapi.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/percpu.h>
#include <linux/hrtimer.h>

#ifndef __USIM_INNER
#define __USIM_INNER 1
#define __USIM_OUTER_saakm
#endif
/*
 * saakm_read_cpu() tests the kernel's recorder switch (a static key) before
 * it records: in user space the switch is always on, and libusim's
 * __saakm_read_cpu() gives replay the recorded value. Not for policies.
 */
#define DECLARE_STATIC_KEY_FALSE(name)	extern const int name
#define static_branch_unlikely(key)	(*(key))
#include "../../../../kernel/src/include/linux/saakm.h"
#undef static_branch_unlikely
#undef DECLARE_STATIC_KEY_FALSE
#ifdef __USIM_OUTER_saakm
#undef __USIM_OUTER_saakm
#undef __USIM_INNER
#endif

#endif /* USIM_SHIM_SAAKM_H */
