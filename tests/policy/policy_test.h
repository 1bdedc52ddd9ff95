/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy_test.h - the frame of a host unit test for a SaaKM policy
 * (tests/policy/t_<policy>.c, docs/testing-policies.md).
 *
 * Each test is a function that builds a world with uc_start(), scripts
 * operations (uc_fork, uc_block, uc_advance, ...) and states what the
 * policy must have decided with EXPECT(). It runs in a child process, so
 * that the policy's globals start fresh (as a freshly loaded module) and a
 * crash or sanitizer report fails that test only. The parent prints one
 * TAP line per test (tests/guest/tap.h); a failing test's reasons and the
 * last simulated events are printed as TAP comments.
 *
 *	static void t_order(void)
 *	{
 *		START(.nr_cpus = 1);
 *		...
 *		EXPECT(uc_curr(0) == 2);
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
#include <linux/saakm.h>	/* the uapi copy in build/uapi: SAAKM_STATES, SAAKM_EVENTS */

#include "tap.h"
#include "usim_class.h"

/* States and events by name, from the lists written once in the uapi header. */
#define PT_STATE(name) SAAKM_##name,
enum { SAAKM_STATES(PT_STATE) };
#define PT_EVENT(NAME, name) SAAKM_EV_##NAME,
enum { SAAKM_EVENTS(PT_EVENT) };

static int pt_failed;

/* A check inside a test: on failure, say where and what, with the trace. */
#define EXPECT(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("#   %s:%d: expected %s%s%s\n", __FILE__, __LINE__, #cond, \
			       uc_failure() ? "; simulation: " : "",	\
			       uc_failure() ? uc_failure() : "");	\
			pt_failed++;					\
		}							\
	} while (0)

/* Start a world or fail the test at once: START(.nr_cpus = 2, .params = "..."). */
#define START(...)							\
	do {								\
		struct uc_opts __o = { .quiet = 1, __VA_ARGS__ };	\
		if (uc_start(&__o)) {					\
			printf("#   %s:%d: uc_start failed: %s\n", __FILE__, __LINE__, \
			       uc_failure() ? uc_failure() : "?");	\
			pt_failed++;					\
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
