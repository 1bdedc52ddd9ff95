/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/percpu.h> (policy subset): per-CPU variables the way the
 * kernel does them. DEFINE_PER_CPU() puts the variable in the section
 * "usim_percpu", a template; the runtime copies the section once per CPU
 * and per_cpu_ptr(ptr, cpu) adds that CPU's offset to the template
 * address. alloc_percpu() memory lives behind the same offsets, so
 * per_cpu_ptr() works alike for both, also on a member
 * (this_cpu_inc(v.count)). Touching a per-CPU variable without
 * per_cpu_ptr() reads the template, as in the kernel it reads garbage.
 */
#ifndef USIM_SHIM_PERCPU_H
#define USIM_SHIM_PERCPU_H

#include <usim/kapi.h>
#include <linux/cpumask.h>

#define __percpu

void *usim_pcpu_ptr(const void *ptr, int cpu);
void *usim_alloc_percpu(size_t size, size_t align);
void usim_free_percpu(void *ptr);

#define DEFINE_PER_CPU(type, name) \
	__attribute__((section("usim_percpu"), aligned(8))) __typeof__(type) name
#define DEFINE_PER_CPU_ALIGNED(type, name) DEFINE_PER_CPU(type, name)
#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name

#define per_cpu_ptr(ptr, cpu)	((__typeof__(ptr))usim_pcpu_ptr((ptr), (cpu)))
#define per_cpu(var, cpu)	(*per_cpu_ptr(&(var), (cpu)))
#define this_cpu_ptr(ptr)	per_cpu_ptr((ptr), usim_this_cpu())
#define raw_cpu_ptr(ptr)	this_cpu_ptr(ptr)
#define get_cpu_ptr(ptr)	this_cpu_ptr(ptr)
#define put_cpu_ptr(ptr)	do { (void)(ptr); } while (0)
#define get_cpu()		usim_this_cpu()
#define put_cpu()		do { } while (0)

#define this_cpu_read(var)		(*this_cpu_ptr(&(var)))
#define this_cpu_write(var, val)	(*this_cpu_ptr(&(var)) = (val))
#define this_cpu_add(var, val)		(*this_cpu_ptr(&(var)) += (val))
#define this_cpu_sub(var, val)		(*this_cpu_ptr(&(var)) -= (val))
#define this_cpu_inc(var)		this_cpu_add(var, 1)
#define this_cpu_dec(var)		this_cpu_sub(var, 1)
#define __this_cpu_read(var)		this_cpu_read(var)
#define __this_cpu_write(var, val)	this_cpu_write(var, val)
#define __this_cpu_add(var, val)	this_cpu_add(var, val)
#define __this_cpu_inc(var)		this_cpu_inc(var)
#define __this_cpu_dec(var)		this_cpu_dec(var)

#define alloc_percpu(type) \
	((__typeof__(type) *)usim_alloc_percpu(sizeof(type), __alignof__(type)))
#define alloc_percpu_gfp(type, gfp) alloc_percpu(type)
#define __alloc_percpu(size, align) usim_alloc_percpu((size), (align))
#define free_percpu(ptr) usim_free_percpu(ptr)

#endif /* USIM_SHIM_PERCPU_H */
