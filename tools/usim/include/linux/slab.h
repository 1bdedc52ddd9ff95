/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/slab.h> (policy subset): kmalloc and friends on the C
 * heap, counted, so that a test can check a policy freed what it allocated
 * (usim_alloc_outstanding()). The gfp flags are accepted and ignored.
 */
#ifndef USIM_SHIM_SLAB_H
#define USIM_SHIM_SLAB_H

#include <usim/kapi.h>

#define __GFP_ZERO	0x100u
#define GFP_NOWAIT	GFP_ATOMIC

void *usim_kmalloc(size_t size, int zero);
void usim_kfree(const void *p);

#define kmalloc(size, gfp)		usim_kmalloc((size), ((gfp) & __GFP_ZERO) != 0)
#define kzalloc(size, gfp)		usim_kmalloc((size), 1)
#define kmalloc_array(n, size, gfp)	\
	((size) && (n) > SIZE_MAX / (size) ? NULL : usim_kmalloc((n) * (size), 0))
#define kcalloc(n, size, gfp)		\
	((size) && (n) > SIZE_MAX / (size) ? NULL : usim_kmalloc((n) * (size), 1))
#define kfree(p)			usim_kfree(p)

#endif /* USIM_SHIM_SLAB_H */
