/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/compiler.h>: part of the SaaKM policy subset. The kernel tree's
 * own user-space port (the kernel's tools/include/linux/compiler.h) does the work;
 * this wrapper only marks it as reached from the subset, so that the guard
 * headers of non-subset files it pulls in let it through (see usim/kapi.h).
 */
#ifndef USIM_SHIM_COMPILER_H
#define USIM_SHIM_COMPILER_H

#ifndef __USIM_INNER
#define __USIM_INNER 1
#define __USIM_OUTER_compiler
#endif
#include_next <linux/compiler.h>
#ifdef __USIM_OUTER_compiler
#undef __USIM_OUTER_compiler
#undef __USIM_INNER
#endif

#endif /* USIM_SHIM_COMPILER_H */
