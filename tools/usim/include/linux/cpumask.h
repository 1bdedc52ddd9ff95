/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/cpumask.h> (policy subset): CPU masks of up to
 * USIM_MAX_CPUS (64) CPUs, one word. nr_cpu_ids is the world's number of
 * possible CPUs; the online and active masks follow simulated hotplug.
 * Functions past a mask's last CPU return nr_cpu_ids or more, like the
 * kernel's.
 */
#ifndef USIM_SHIM_CPUMASK_H
#define USIM_SHIM_CPUMASK_H

#include <usim/kapi.h>

#define USIM_CPUMASK_BITS 64

struct cpumask {
	unsigned long bits[1];
};
typedef struct cpumask cpumask_t;
typedef struct cpumask cpumask_var_t[1];

extern unsigned int nr_cpu_ids;
extern const struct cpumask *const cpu_possible_mask;
extern const struct cpumask *const cpu_present_mask;
extern const struct cpumask *const cpu_online_mask;
extern const struct cpumask *const cpu_active_mask;
const struct cpumask *usim_cpumask_of(int cpu);

#define cpumask_bits(m)		((m)->bits)
#define cpumask_of(cpu)		usim_cpumask_of(cpu)
#define CPU_MASK_NONE		((struct cpumask){ { 0 } })

static inline unsigned int usim_nth_bit(unsigned long w, unsigned int n)
{
	while (w) {
		if (!n--)
			return __builtin_ctzl(w);
		w &= w - 1;
	}
	return nr_cpu_ids > USIM_CPUMASK_BITS ? nr_cpu_ids : USIM_CPUMASK_BITS;
}

static inline unsigned long usim_bit(unsigned int cpu)
{
	return cpu < USIM_CPUMASK_BITS ? 1UL << cpu : 0;
}

static inline unsigned int usim_first_from(unsigned long w, int start)
{
	if (start >= USIM_CPUMASK_BITS)
		return nr_cpu_ids;
	w &= ~0UL << start;
	return w ? (unsigned int)__builtin_ctzl(w) : nr_cpu_ids;
}

static inline bool cpumask_test_cpu(int cpu, const struct cpumask *m)
{
	return cpu >= 0 && (m->bits[0] & usim_bit(cpu));
}
static inline void cpumask_set_cpu(unsigned int cpu, struct cpumask *m) { m->bits[0] |= usim_bit(cpu); }
static inline void cpumask_clear_cpu(int cpu, struct cpumask *m) { if (cpu >= 0) m->bits[0] &= ~usim_bit(cpu); }
static inline bool cpumask_test_and_set_cpu(int cpu, struct cpumask *m)
{
	bool was = cpumask_test_cpu(cpu, m);

	cpumask_set_cpu(cpu, m);
	return was;
}
static inline bool cpumask_test_and_clear_cpu(int cpu, struct cpumask *m)
{
	bool was = cpumask_test_cpu(cpu, m);

	cpumask_clear_cpu(cpu, m);
	return was;
}
static inline void cpumask_clear(struct cpumask *m) { m->bits[0] = 0; }
static inline void cpumask_setall(struct cpumask *m)
{
	m->bits[0] = nr_cpu_ids >= USIM_CPUMASK_BITS ? ~0UL : (1UL << nr_cpu_ids) - 1;
}
static inline void cpumask_copy(struct cpumask *d, const struct cpumask *s) { d->bits[0] = s->bits[0]; }
static inline bool cpumask_and(struct cpumask *d, const struct cpumask *a, const struct cpumask *b)
{
	d->bits[0] = a->bits[0] & b->bits[0];
	return d->bits[0] != 0;
}
static inline void cpumask_or(struct cpumask *d, const struct cpumask *a, const struct cpumask *b)
{
	d->bits[0] = a->bits[0] | b->bits[0];
}
static inline bool cpumask_andnot(struct cpumask *d, const struct cpumask *a, const struct cpumask *b)
{
	d->bits[0] = a->bits[0] & ~b->bits[0];
	return d->bits[0] != 0;
}
static inline bool cpumask_empty(const struct cpumask *m) { return !m->bits[0]; }
static inline bool cpumask_full(const struct cpumask *m) { return cpumask_test_cpu(0, m) && __builtin_popcountl(m->bits[0]) >= (int)nr_cpu_ids; }
static inline bool cpumask_equal(const struct cpumask *a, const struct cpumask *b) { return a->bits[0] == b->bits[0]; }
static inline bool cpumask_intersects(const struct cpumask *a, const struct cpumask *b) { return a->bits[0] & b->bits[0]; }
static inline bool cpumask_subset(const struct cpumask *a, const struct cpumask *b) { return !(a->bits[0] & ~b->bits[0]); }
static inline unsigned int cpumask_weight(const struct cpumask *m) { return __builtin_popcountl(m->bits[0]); }
static inline unsigned int cpumask_weight_and(const struct cpumask *a, const struct cpumask *b)
{
	return __builtin_popcountl(a->bits[0] & b->bits[0]);
}
static inline unsigned int cpumask_first(const struct cpumask *m) { return usim_first_from(m->bits[0], 0); }
static inline unsigned int cpumask_first_zero(const struct cpumask *m) { return usim_first_from(~m->bits[0], 0); }
static inline unsigned int cpumask_last(const struct cpumask *m)
{
	return m->bits[0] ? 63 - __builtin_clzl(m->bits[0]) : nr_cpu_ids;
}
static inline unsigned int cpumask_next(int n, const struct cpumask *m) { return usim_first_from(m->bits[0], n + 1); }
static inline unsigned int cpumask_next_zero(int n, const struct cpumask *m) { return usim_first_from(~m->bits[0], n + 1); }
static inline unsigned int cpumask_first_and(const struct cpumask *a, const struct cpumask *b)
{
	return usim_first_from(a->bits[0] & b->bits[0], 0);
}
static inline unsigned int cpumask_next_and(int n, const struct cpumask *a, const struct cpumask *b)
{
	return usim_first_from(a->bits[0] & b->bits[0], n + 1);
}
static inline unsigned int cpumask_nth(unsigned int n, const struct cpumask *m) { return usim_nth_bit(m->bits[0], n); }
static inline unsigned int cpumask_nth_and(unsigned int n, const struct cpumask *a, const struct cpumask *b)
{
	return usim_nth_bit(a->bits[0] & b->bits[0], n);
}
static inline unsigned int cpumask_next_wrap(int n, const struct cpumask *m, int start, bool wrap)
{
	unsigned int next = cpumask_next(n, m);

	(void)start;
	(void)wrap;
	return next < nr_cpu_ids ? next : cpumask_first(m);
}
#define cpumask_any(m)			cpumask_first(m)
#define cpumask_any_and(a, b)		cpumask_first_and(a, b)
#define cpumask_any_but(m, cpu)		usim_first_from((m)->bits[0] & ~usim_bit(cpu), 0)

#define for_each_cpu(cpu, m) \
	for ((cpu) = cpumask_first(m); (unsigned int)(cpu) < nr_cpu_ids; (cpu) = cpumask_next((cpu), (m)))
#define for_each_cpu_and(cpu, a, b) \
	for ((cpu) = cpumask_first_and(a, b); (unsigned int)(cpu) < nr_cpu_ids; \
	     (cpu) = cpumask_next_and((cpu), (a), (b)))
#define for_each_cpu_not(cpu, m) \
	for ((cpu) = cpumask_first_zero(m); (unsigned int)(cpu) < nr_cpu_ids; \
	     (cpu) = cpumask_next_zero((cpu), (m)))
#define for_each_possible_cpu(cpu)	for_each_cpu((cpu), cpu_possible_mask)
#define for_each_present_cpu(cpu)	for_each_cpu((cpu), cpu_present_mask)
#define for_each_online_cpu(cpu)	for_each_cpu((cpu), cpu_online_mask)

#define cpu_online(cpu)		cpumask_test_cpu((cpu), cpu_online_mask)
#define cpu_active(cpu)		cpumask_test_cpu((cpu), cpu_active_mask)
#define cpu_possible(cpu)	cpumask_test_cpu((cpu), cpu_possible_mask)
#define cpu_present(cpu)	cpumask_test_cpu((cpu), cpu_present_mask)
#define num_online_cpus()	cpumask_weight(cpu_online_mask)
#define num_possible_cpus()	cpumask_weight(cpu_possible_mask)
#define num_active_cpus()	cpumask_weight(cpu_active_mask)

/* cpumask_var_t is an array here, as with CONFIG_CPUMASK_OFFSTACK=n. */
static inline bool zalloc_cpumask_var(cpumask_var_t *m, int gfp) { (void)gfp; cpumask_clear(*m); return true; }
static inline bool alloc_cpumask_var(cpumask_var_t *m, int gfp) { return zalloc_cpumask_var(m, gfp); }
static inline void free_cpumask_var(cpumask_var_t m) { (void)m; }

#endif /* USIM_SHIM_CPUMASK_H */
