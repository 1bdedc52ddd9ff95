/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy_test.h - the frame of a host unit test for a SaaKM policy
 * (tests/policy/t_<policy>.c, docs/testing-policies.md).
 *
 * Each test is a function that builds a world with uc_start(), scripts
 * operations (uc_fork, uc_block, uc_advance, ...) and states what the
 * policy must have decided with EXPECT(), or EXPECT_EQ() and the like,
 * which print both sides of a comparison. It runs in a child process, so
 * that the policy's globals start fresh (as a freshly loaded module) and a
 * crash or sanitizer report fails that test only. The parent prints one
 * TAP line per test (tests/guest/tap.h); a failing test's reasons and the
 * last simulated events are printed as TAP comments.
 *
 *	static void t_order(void)
 *	{
 *		START(.nr_cpus = 1);
 *		...
 *		EXPECT_EQ(uc_curr(0), 2);
 *	}
 *	int main(void) { RUN(t_order, "FIFO order on one CPU"); return tap_done(); }
 */
#ifndef POLICY_TEST_H
#define POLICY_TEST_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/saakm.h>	/* the uapi header: SAAKM_STATES, SAAKM_EVENTS */

#include "tap.h"
#include "usim_class.h"

/* States and events by name, from the lists written once in the uapi header. */
#define PT_STATE(name) SAAKM_##name,
enum { SAAKM_STATES(PT_STATE) };
#define PT_EVENT(NAME, name) SAAKM_EV_##NAME,
enum { SAAKM_EVENTS(PT_EVENT) };

static int pt_failed;

/*
 * The end of a failed check's line, which counts it: why the last operation
 * was refused, if it was (an operation that returned -1 says why), and the
 * simulation's failure, unless the refusal already quotes it.
 */
static inline void pt_why(void)
{
	const char *refusal = uc_refusal(), *failure = uc_failure();

	if (refusal)
		printf("; the simulator refused: %s", refusal);
	if (failure && !(refusal && strstr(refusal, failure)))
		printf("; simulation: %s", failure);
	printf("\n");
	pt_failed++;
}

/* A check inside a test: on failure, say where and what, with the trace. */
#define EXPECT(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("#   %s:%d: expected %s", __FILE__, __LINE__, #cond); \
			pt_why();					\
		}							\
	} while (0)

/*
 * Integer comparisons that print both values: EXPECT_EQ(uc_curr(0), 2)
 * fails with "expected uc_curr(0) == 2: uc_curr(0) is 3". Each operand is
 * evaluated once and compared as the number it is, whatever its type (-1
 * is below 0U, unlike in C's <). (T)1.5 == 1 holds for an integer type T
 * only: a floating-point operand does not compile, nor does a pointer;
 * (T)-1 < (T)1 for a signed one only.
 */
#define PT_IS_INT(x)	((__typeof__(x))1.5 == 1)
#define PT_SIGNED(x)	((__typeof__(x))-1 < (__typeof__(x))1)

/* -1, 0 or 1 as @a is below, equal to or above @b. */
static inline int pt_cmp(int a_signed, unsigned long long a, int b_signed, unsigned long long b)
{
	int a_neg = a_signed && (long long)a < 0, b_neg = b_signed && (long long)b < 0;

	if (a_neg != b_neg)
		return a_neg ? -1 : 1;
	/* Two negative numbers keep their order as unsigned ones. */
	return a < b ? -1 : a > b;
}

/* ": a is 3" (@sep, then the value), unless @text is the value itself (a literal). */
static inline const char *pt_show_int(const char *sep, const char *text, int is_signed,
				      unsigned long long v)
{
	char buf[32];

	if (is_signed)
		snprintf(buf, sizeof(buf), "%lld", (long long)v);
	else
		snprintf(buf, sizeof(buf), "%llu", v);
	if (!strcmp(text, buf))
		return sep;
	printf("%s%s is %s", sep, text, buf);
	return ", ";
}

static inline void pt_cmp_failed(const char *file, int line, const char *a_text,
				 const char *op, const char *b_text, int a_signed,
				 unsigned long long a, int b_signed, unsigned long long b)
{
	printf("#   %s:%d: expected %s %s %s", file, line, a_text, op, b_text);
	pt_show_int(pt_show_int(": ", a_text, a_signed, a), b_text, b_signed, b);
	pt_why();
}

#define PT_EXPECT_CMP(a, op, b, a_text, b_text)				\
	do {								\
		__typeof__(a) pt_a_ = (a);				\
		__typeof__(b) pt_b_ = (b);				\
		_Static_assert(PT_IS_INT(pt_a_) && PT_IS_INT(pt_b_),	\
			       "EXPECT_EQ and the like compare integers"); \
		if (!(pt_cmp(PT_SIGNED(pt_a_), pt_a_, PT_SIGNED(pt_b_), pt_b_) op 0)) \
			pt_cmp_failed(__FILE__, __LINE__, a_text, #op, b_text, \
				      PT_SIGNED(pt_a_), pt_a_, PT_SIGNED(pt_b_), pt_b_); \
	} while (0)

/* The operands are turned into text here, before their macros expand (MS). */
#define EXPECT_EQ(a, b)	PT_EXPECT_CMP(a, ==, b, #a, #b)
#define EXPECT_NE(a, b)	PT_EXPECT_CMP(a, !=, b, #a, #b)
#define EXPECT_LT(a, b)	PT_EXPECT_CMP(a, <, b, #a, #b)
#define EXPECT_LE(a, b)	PT_EXPECT_CMP(a, <=, b, #a, #b)
#define EXPECT_GT(a, b)	PT_EXPECT_CMP(a, >, b, #a, #b)
#define EXPECT_GE(a, b)	PT_EXPECT_CMP(a, >=, b, #a, #b)

/* As pt_show_int(), for a string: none for a literal. */
static inline const char *pt_show_str(const char *sep, const char *text, const char *s)
{
	if (text[0] == '"')
		return sep;
	if (s)
		printf("%s%s is \"%s\"", sep, text, s);
	else
		printf("%s%s is NULL", sep, text);
	return ", ";
}

/* Two strings (either may be NULL) are equal: EXPECT_STREQ(buf, "3"). */
#define EXPECT_STREQ(a, b)						\
	do {								\
		const char *pt_a_ = (a), *pt_b_ = (b);			\
		if (pt_a_ && pt_b_ ? strcmp(pt_a_, pt_b_) : pt_a_ != pt_b_) { \
			printf("#   %s:%d: expected %s equal to %s", __FILE__, __LINE__, #a, #b); \
			pt_show_str(pt_show_str(": ", #a, pt_a_), #b, pt_b_); \
			pt_why();					\
		}							\
	} while (0)

/* Start a world or fail the test at once: START(.nr_cpus = 2, .params = "..."). */
#define START(...)							\
	do {								\
		struct uc_opts __o = { .quiet = 1, __VA_ARGS__ };	\
		int __ret = uc_start(&__o);				\
		if (__ret) {						\
			printf("#   %s:%d: uc_start() returned %d", __FILE__, __LINE__, __ret); \
			pt_why();					\
			return;						\
		}							\
	} while (0)

/* Run @fn in a child; one TAP line for it. */
static inline void pt_run(void (*fn)(void), const char *desc)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		tap_not_ok(desc, "fork failed");
		return;
	}
	if (pid == 0) {
		fn();
		if (!pt_failed && uc_failure()) {
			printf("#   simulation failed: %s\n", uc_failure());
			pt_failed++;
		}
		if (pt_failed)
			uc_trace_dump(stdout, 25);
		fflush(stdout);
		_exit(pt_failed ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		tap_not_ok(desc, "the test crashed (signal %d)",
			   WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	else if (WEXITSTATUS(status))
		tap_not_ok(desc, NULL);
	else
		tap_ok(desc);
}

#define RUN(fn, desc) pt_run(fn, desc)

#endif /* POLICY_TEST_H */
