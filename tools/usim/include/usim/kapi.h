/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim/kapi.h - what every usim shim header needs: the kernel-ish basics
 * (types, container_of, min/max, BIT, NSEC_PER_*, WARN_ON, jiffies,
 * smp_processor_id) and the runtime entry points the shims expand to.
 *
 * How the subset is enforced. The shim directory (tools/usim/include) comes
 * first on the include path, then a directory of generated guard headers
 * (one for every header of the kernel's tools/include that is not a shim),
 * then the kernel's tools/include itself. A guard header refuses to be
 * included unless __USIM_INNER is defined, which only the shims (and this
 * file) define around their own includes. So a policy can reach the kernel
 * tree's user-space headers only through the subset, and anything else
 * fails to compile with a message naming the subset.
 */
#ifndef USIM_KAPI_H
#define USIM_KAPI_H

#ifndef __USIM_INNER
#define __USIM_INNER 1
#define __USIM_OUTER_kapi
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/bits.h>
#include <linux/time64.h>
#include <linux/err.h>
#ifdef __USIM_OUTER_kapi
#undef __USIM_OUTER_kapi
#undef __USIM_INNER
#endif

/* Runtime entry points (tools/usim/usim.c). */
void usim_warn(const char *file, int line, const char *what);
int usim_this_cpu(void);
unsigned long usim_jiffies(void);
unsigned long long usim_clock_ns(void);
void usim_lock_point(void);

#ifndef __init
#define __init
#endif
#ifndef __exit
#define __exit
#endif
#define __initdata
#define __exitdata

/* A WARN in a policy is a bug the simulation reports (usim_hooks.error). */
#undef WARN_ON
#undef WARN_ON_ONCE
#undef WARN
#undef WARN_ONCE
#undef BUG_ON
#undef BUG
#define WARN_ON(cond) ({						\
	int __usim_c = !!(cond);					\
	if (unlikely(__usim_c))						\
		usim_warn(__FILE__, __LINE__, "WARN_ON(" #cond ")");	\
	unlikely(__usim_c);						\
})
#define WARN_ON_ONCE(cond) WARN_ON(cond)
#define WARN(cond, fmt...) WARN_ON(cond)
#define WARN_ONCE(cond, fmt...) WARN_ON(cond)
#define BUG() usim_warn(__FILE__, __LINE__, "BUG()")
#define BUG_ON(cond) do { if (unlikely(cond)) usim_warn(__FILE__, __LINE__, "BUG_ON(" #cond ")"); } while (0)

/* Time: HZ 250, like the guests' kernels. */
#define HZ 250
#define jiffies usim_jiffies()
#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after(b, a)
#define time_after_eq(a, b)	((long)((a) - (b)) >= 0)
#define time_before_eq(a, b)	time_after_eq(b, a)
static inline unsigned long msecs_to_jiffies(unsigned int ms)
{
	return (ms + (1000 / HZ) - 1) / (1000 / HZ);
}
static inline unsigned int jiffies_to_msecs(unsigned long j)
{
	return j * (1000 / HZ);
}

/* The CPU the current callback runs on. */
#define smp_processor_id() usim_this_cpu()
#define raw_smp_processor_id() usim_this_cpu()

/* Callbacks never sleep, and the simulation runs one at a time. */
#define might_sleep() do { } while (0)
#define cond_resched() do { } while (0)
#define cpu_relax() do { } while (0)
#define preempt_disable() do { } while (0)
#define preempt_enable() do { } while (0)
#define local_irq_save(f) ((f) = 0)
#define local_irq_restore(f) ((void)(f))
#define lockdep_assert_held(l) ((void)(l))

/* scnprintf: what the kernel's returns (bytes written, not wanted). */
static inline int usim_scnprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int usim_scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : ((size_t)n >= size ? (int)size - 1 : n);
}
#define scnprintf usim_scnprintf

#endif /* USIM_KAPI_H */
