/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/hrtimer.h> (policy subset): high-resolution timers on
 * the simulation's logical clock. A started timer fires when the driver
 * advances the clock past its expiry (usim_advance_ns()), on the CPU that
 * started it, with the clock set to the expiry. Both the 6.12 interface
 * (hrtimer_init() then ->function) and hrtimer_setup() are provided.
 */
#ifndef USIM_SHIM_HRTIMER_H
#define USIM_SHIM_HRTIMER_H

#include <usim/kapi.h>
#include <time.h>

typedef s64 ktime_t;

enum hrtimer_restart {
	HRTIMER_NORESTART,
	HRTIMER_RESTART,
};

enum hrtimer_mode {
	HRTIMER_MODE_ABS	= 0x00,
	HRTIMER_MODE_REL	= 0x01,
	HRTIMER_MODE_PINNED	= 0x02,
	HRTIMER_MODE_SOFT	= 0x04,
	HRTIMER_MODE_HARD	= 0x08,
	HRTIMER_MODE_ABS_PINNED	= HRTIMER_MODE_ABS | HRTIMER_MODE_PINNED,
	HRTIMER_MODE_REL_PINNED	= HRTIMER_MODE_REL | HRTIMER_MODE_PINNED,
	HRTIMER_MODE_ABS_SOFT	= HRTIMER_MODE_ABS | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_REL_SOFT	= HRTIMER_MODE_REL | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_ABS_HARD	= HRTIMER_MODE_ABS | HRTIMER_MODE_HARD,
	HRTIMER_MODE_REL_HARD	= HRTIMER_MODE_REL | HRTIMER_MODE_HARD,
	HRTIMER_MODE_REL_PINNED_HARD = HRTIMER_MODE_REL_PINNED | HRTIMER_MODE_HARD,
	HRTIMER_MODE_ABS_PINNED_HARD = HRTIMER_MODE_ABS_PINNED | HRTIMER_MODE_HARD,
};

/**
 * struct hrtimer - a timer; only @function is the policy's to touch
 * @function: called at expiry; HRTIMER_RESTART re-arms at the (forwarded)
 *	expiry
 * @expires: absolute expiry on the logical clock, ns
 * @cpu: CPU that started it (the callback runs there)
 * @queued: armed
 * @next: link in the runtime's list of armed timers
 */
struct hrtimer {
	enum hrtimer_restart (*function)(struct hrtimer *timer);
	ktime_t expires;
	int cpu;
	int queued;
	struct hrtimer *next;
};

void usim_hrtimer_start(struct hrtimer *timer, ktime_t tim, enum hrtimer_mode mode);
int usim_hrtimer_cancel(struct hrtimer *timer);

static inline ktime_t ktime_get(void) { return (ktime_t)usim_clock_ns(); }
static inline u64 ktime_get_ns(void) { return usim_clock_ns(); }
#define ktime_get_mono_fast_ns() ktime_get_ns()
static inline ktime_t ns_to_ktime(u64 ns) { return (ktime_t)ns; }
/* No us_to_ktime(): the 6.12 kernel has none (ns_to_ktime(us * NSEC_PER_USEC)). */
static inline ktime_t ms_to_ktime(u64 ms) { return (ktime_t)(ms * NSEC_PER_MSEC); }
static inline ktime_t ktime_set(const s64 secs, const unsigned long nsecs)
{
	return (ktime_t)(secs * NSEC_PER_SEC + (s64)nsecs);
}
static inline s64 ktime_to_ns(ktime_t kt) { return kt; }
static inline s64 ktime_to_us(ktime_t kt) { return kt / NSEC_PER_USEC; }
static inline s64 ktime_to_ms(ktime_t kt) { return kt / NSEC_PER_MSEC; }
#define ktime_add(a, b)		((a) + (b))
#define ktime_sub(a, b)		((a) - (b))
#define ktime_add_ns(kt, ns)	((kt) + (ktime_t)(ns))
#define ktime_sub_ns(kt, ns)	((kt) - (ktime_t)(ns))
#define ktime_compare(a, b)	((a) < (b) ? -1 : (a) > (b) ? 1 : 0)
#define ktime_after(a, b)	((a) > (b))
#define ktime_before(a, b)	((a) < (b))
#define ktime_add_us(kt, us)	((kt) + (ktime_t)((us) * NSEC_PER_USEC))
#define ktime_add_ms(kt, ms)	((kt) + (ktime_t)((ms) * NSEC_PER_MSEC))
#define ktime_sub_us(kt, us)	((kt) - (ktime_t)((us) * NSEC_PER_USEC))
#define ktime_sub_ms(kt, ms)	((kt) - (ktime_t)((ms) * NSEC_PER_MSEC))
#define ktime_us_delta(later, earlier)	ktime_to_us(ktime_sub((later), (earlier)))
#define ktime_ms_delta(later, earlier)	ktime_to_ms(ktime_sub((later), (earlier)))
#define ktime_divns(kt, div)	((s64)(kt) / (s64)(div))

static inline void hrtimer_init(struct hrtimer *timer, clockid_t clock_id, enum hrtimer_mode mode)
{
	(void)clock_id;
	(void)mode;
	memset(timer, 0, sizeof(*timer));
}

static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}

static inline void hrtimer_start(struct hrtimer *timer, ktime_t tim, enum hrtimer_mode mode)
{
	usim_hrtimer_start(timer, tim, mode);
}

static inline void hrtimer_start_range_ns(struct hrtimer *timer, ktime_t tim, u64 slack,
					  enum hrtimer_mode mode)
{
	(void)slack;
	usim_hrtimer_start(timer, tim, mode);
}

/* Return: 1 if the timer was armed, 0 if not. */
static inline int hrtimer_cancel(struct hrtimer *timer) { return usim_hrtimer_cancel(timer); }
static inline int hrtimer_try_to_cancel(struct hrtimer *timer) { return usim_hrtimer_cancel(timer); }
static inline bool hrtimer_active(const struct hrtimer *timer) { return timer->queued; }
static inline bool hrtimer_is_queued(const struct hrtimer *timer) { return timer->queued; }
static inline ktime_t hrtimer_get_expires(const struct hrtimer *timer) { return timer->expires; }
static inline void hrtimer_set_expires(struct hrtimer *timer, ktime_t t) { timer->expires = t; }
static inline void hrtimer_add_expires_ns(struct hrtimer *timer, u64 ns) { timer->expires += ns; }
static inline ktime_t hrtimer_expires_remaining(const struct hrtimer *timer)
{
	return timer->expires - ktime_get();
}

/* Move the expiry forward by whole @interval past @now; the overruns. */
static inline u64 hrtimer_forward(struct hrtimer *timer, ktime_t now, ktime_t interval)
{
	u64 n;

	if (now < timer->expires || interval <= 0)
		return 0;
	n = (u64)((now - timer->expires) / interval) + 1;
	timer->expires += (ktime_t)n * interval;
	return n;
}

static inline u64 hrtimer_forward_now(struct hrtimer *timer, ktime_t interval)
{
	return hrtimer_forward(timer, ktime_get(), interval);
}

#endif /* USIM_SHIM_HRTIMER_H */
