/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/spinlock.h> (policy subset). The simulation runs one
 * callback at a time, so a lock only records that it is held: taking a lock
 * already held (a self-deadlock in the kernel) or releasing a free one is
 * reported as a WARN. The irq/bh/irqsave forms are the same lock. Before a
 * callback takes one, usim_lock_point() tells the driver (replay runs
 * overlapping calls on coroutines: the call waits there for its turn).
 */
#ifndef USIM_SHIM_SPINLOCK_H
#define USIM_SHIM_SPINLOCK_H

#include <usim/kapi.h>

typedef struct { int locked; } spinlock_t;
typedef spinlock_t raw_spinlock_t;

#define __SPIN_LOCK_UNLOCKED(x)		((spinlock_t){ 0 })
#define __RAW_SPIN_LOCK_UNLOCKED(x)	((raw_spinlock_t){ 0 })
#define DEFINE_SPINLOCK(x)		spinlock_t x = { 0 }
#define DEFINE_RAW_SPINLOCK(x)		raw_spinlock_t x = { 0 }

static inline void usim_spin_lock(spinlock_t *l)
{
	usim_lock_point();
	WARN_ON(l->locked);
	l->locked = 1;
}

static inline void usim_spin_unlock(spinlock_t *l)
{
	WARN_ON(!l->locked);
	l->locked = 0;
}

static inline int usim_spin_trylock(spinlock_t *l)
{
	usim_lock_point();
	if (l->locked)
		return 0;
	l->locked = 1;
	return 1;
}

#define spin_lock_init(l)			((l)->locked = 0)
#define spin_lock(l)				usim_spin_lock(l)
#define spin_unlock(l)				usim_spin_unlock(l)
#define spin_trylock(l)				usim_spin_trylock(l)
#define spin_lock_irq(l)			usim_spin_lock(l)
#define spin_unlock_irq(l)			usim_spin_unlock(l)
#define spin_lock_bh(l)				usim_spin_lock(l)
#define spin_unlock_bh(l)			usim_spin_unlock(l)
#define spin_lock_irqsave(l, flags)		((flags) = 0, usim_spin_lock(l))
#define spin_unlock_irqrestore(l, flags)	((void)(flags), usim_spin_unlock(l))
#define spin_is_locked(l)			((l)->locked)
#define assert_spin_locked(l)			WARN_ON(!(l)->locked)
#define raw_spin_lock_init(l)			spin_lock_init(l)
#define raw_spin_lock(l)			spin_lock(l)
#define raw_spin_unlock(l)			spin_unlock(l)
#define raw_spin_trylock(l)			spin_trylock(l)
#define raw_spin_lock_irq(l)			spin_lock(l)
#define raw_spin_unlock_irq(l)			spin_unlock(l)
#define raw_spin_lock_irqsave(l, flags)		spin_lock_irqsave(l, flags)
#define raw_spin_unlock_irqrestore(l, flags)	spin_unlock_irqrestore(l, flags)

#endif /* USIM_SHIM_SPINLOCK_H */
