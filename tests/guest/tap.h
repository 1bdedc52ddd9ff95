/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP helpers for in-guest C tests (tests/guest/t_*.c). The Makefile
 * compiles each into build/tests/t_<name> and the suite runs it in the guest.
 *
 *	#include "tap.h"
 *	int main(void)
 *	{
 *		tap_subtest("pids");
 *		TAP_CHECK(getpid() > 0, "getpid works");	// "ok 1 pids: getpid works"
 *		return tap_done();
 *	}
 *
 * This and tap.sh (its shell twin) are the project's only TAP
 * implementations; host unit tests (tools/tests) use it too.
 */
#ifndef SAAKM_TAP_H
#define SAAKM_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed, tap_passed, tap_skipped;
static const char *tap_group;

/*
 * Name the subtest the checks that follow belong to: their descriptions
 * read "GROUP: desc" (NULL: no prefix again). For a test file that checks
 * several behaviours, one group per behaviour.
 */
static inline void tap_subtest(const char *group)
{
	tap_group = group;
	if (group)
		printf("# subtest: %s\n", group);
}

static inline void tap_line(const char *status, const char *desc,
			    const char *directive, const char *fmt, va_list *ap)
{
	printf("%s %d ", status, ++tap_n);
	if (tap_group)
		printf("%s: ", tap_group);
	printf("%s", desc);
	if (directive || fmt) {
		printf(" #");
		if (directive)
			printf(" %s", directive);
		if (fmt) {
			printf(" ");
			vprintf(fmt, *ap);
		}
	}
	printf("\n");
	fflush(stdout);
}

static inline void tap_ok(const char *desc)
{
	tap_passed++;
	tap_line("ok", desc, NULL, NULL, NULL);
}

static inline void tap_not_ok(const char *desc, const char *fmt, ...)
{
	va_list ap;

	tap_failed++;
	va_start(ap, fmt);
	tap_line("not ok", desc, NULL, fmt, &ap);
	va_end(ap);
}

static inline void tap_skip(const char *desc, const char *fmt, ...)
{
	va_list ap;

	tap_skipped++;
	va_start(ap, fmt);
	tap_line("ok", desc, "SKIP", fmt, &ap);
	va_end(ap);
}

/* 0 if nothing failed, 4 (kselftest skip) if all skipped, 1 otherwise. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed)
		return 1;
	return (!tap_passed && tap_skipped) ? 4 : 0;
}

#define TAP_CHECK(cond, desc)						\
	do {								\
		if (cond)						\
			tap_ok(desc);					\
		else							\
			tap_not_ok(desc, "%s:%d: %s", __FILE__, __LINE__, #cond); \
	} while (0)

/* TAP_CHECK with a printf-style description. */
#define TAP_CHECKF(cond, ...)						\
	do {								\
		char __tap_desc[256];					\
		snprintf(__tap_desc, sizeof(__tap_desc), __VA_ARGS__);	\
		TAP_CHECK(cond, __tap_desc);				\
	} while (0)

#endif /* SAAKM_TAP_H */
