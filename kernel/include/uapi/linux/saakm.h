/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * SaaKM user-space ABI: what a program needs, besides SCHED_SAAKM and the
 * sched_attr fields in <linux/sched/types.h>, to move tasks onto a policy.
 *
 * A task joins a policy with sched_setattr() and:
 *   attr.size                 >= SCHED_ATTR_SIZE_VER2
 *   attr.sched_policy          = SCHED_SAAKM
 *   attr.sched_saakm_id        = the policy id (see /proc/saakm/policies)
 *   attr.sched_saakm_attr      = optional pointer to a policy-defined blob
 *   attr.sched_saakm_attr_size = its size, at most SAAKM_ATTR_MAX_SIZE
 * sched_getattr() reports the id back in sched_saakm_id.
 */
#ifndef _UAPI_LINUX_SAAKM_H
#define _UAPI_LINUX_SAAKM_H

/* Largest policy attribute blob accepted by sched_setattr() (else E2BIG). */
#define SAAKM_ATTR_MAX_SIZE	4096

/* Longest policy name, including the terminating NUL. */
#define SAAKM_NAME_LEN		32

/* sched_saakm_id value meaning "keep the current policy" (sched_setparam). */
#define SAAKM_ID_KEEP		0

#endif /* _UAPI_LINUX_SAAKM_H */
