/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/math64.h> (policy subset): the kernel's 64-bit division
 * helpers. On a 64-bit host they are plain C division, which is what the
 * kernel's generic versions compute too (the kernel needs them because
 * 32-bit architectures lack a 64-bit divide). The kernel tree's user-space
 * math64.h supplies mul_u64_u32_shr() and mul_u64_u64_div64().
 */
#ifndef USIM_SHIM_MATH64_H
#define USIM_SHIM_MATH64_H

#include <usim/kapi.h>

#ifndef __USIM_INNER
#define __USIM_INNER 1
#define __USIM_OUTER_math64
#endif
#include_next <linux/math64.h>
#ifdef __USIM_OUTER_math64
#undef __USIM_OUTER_math64
#undef __USIM_INNER
#endif

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline s64 div_s64_rem(s64 dividend, s32 divisor, s32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline s64 div_s64(s64 dividend, s32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline s64 div64_s64(s64 dividend, s64 divisor)
{
	return dividend / divisor;
}

#define div64_ul(x, y)		div64_u64((x), (y))
#define div64_long(x, y)	div64_s64((x), (y))

/* (a * mul) / divisor without overflowing the product: 128-bit on the host. */
static inline u64 mul_u64_u32_div(u64 a, u32 mul, u32 divisor)
{
	return (u64)(((unsigned __int128)a * mul) / divisor);
}

static inline u64 mul_u64_u64_shr(u64 a, u64 mul, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * mul) >> shift);
}

#define DIV64_U64_ROUND_UP(ll, d)	div64_u64((ll) + (d) - 1, (d))
#define DIV64_U64_ROUND_CLOSEST(dividend, divisor) \
	div64_u64((dividend) + ((divisor) / 2), (divisor))
#ifndef DIV_ROUND_UP_ULL
#define DIV_ROUND_UP_ULL(ll, d)		div_u64((ll) + (d) - 1, (d))
#endif

#endif /* USIM_SHIM_MATH64_H */
