/* SPDX-License-Identifier: GPL-2.0 */
/*
 * three_on_two.h - 3 equal hogs on 2 CPUs with the first one started a few
 * ms ahead, for the host tests of fair-share policies (include after
 * policy_test.h). Both CPUs then balance in the same tick, and a policy
 * that lets the second balance undo the first's swap, or that picks the
 * task to leave alone badly, gives one hog more than its two thirds of a
 * CPU. Each hog must get 66.7% within 3 points over 10 s, at every offset.
 * Each offset is a world of its own, in a forked process, so that the
 * module's state starts fresh.
 */
#ifndef THREE_ON_TWO_H
#define THREE_ON_TWO_H

#include <sys/wait.h>
#include <unistd.h>

#define T32_NS	(10000 * 1000000ULL)

static void three_on_two_world(unsigned long long ahead_us)
{
	unsigned long long t0, got[3];
	int i;

	START(.nr_cpus = 2);
	EXPECT(uc_fork(1, 0, 0, 0) == 0);
	EXPECT(uc_advance(ahead_us * 1000) == 0);
	t0 = uc_runtime(1);
	EXPECT(uc_fork(2, 0, 0, 0) == 0 && uc_fork(3, 0, 0, 0) == 0);
	EXPECT(uc_advance(T32_NS) == 0);
	got[0] = uc_runtime(1) - t0;
	got[1] = uc_runtime(2);
	got[2] = uc_runtime(3);
	printf("#   %llu us ahead: %.1f%% %.1f%% %.1f%%\n", ahead_us,
	       got[0] * 100.0 / T32_NS, got[1] * 100.0 / T32_NS, got[2] * 100.0 / T32_NS);
	for (i = 0; i < 3; i++)
		EXPECT(got[i] > T32_NS * 637 / 1000 && got[i] < T32_NS * 697 / 1000);
}

static void t_three_on_two_staggered(void)
{
	static const unsigned long long ahead_us[] = { 1300, 4100, 7300, 12900 };
	int i, status;

	for (i = 0; i < 4; i++) {
		fflush(stdout);
		if (fork() == 0) {
			three_on_two_world(ahead_us[i]);
			fflush(stdout);
			_exit(pt_failed != 0);
		}
		wait(&status);
		EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

#endif
