// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of bench/nullpol/saakm_nullpol.c (several policy
 * instances from one module, only the mandatory callbacks), compiled
 * unchanged against libusim: registration of `count` instances in slot
 * order, parameter checks, precedence of an earlier instance on a CPU
 * (the later one's running task is parked and resumes first), FIFO within
 * an instance, the default CPU choices, and an unload of every instance.
 */
#include "policy_test.h"

#define MS 1000000ULL

/* count=3: null0, null1, null2, in slot order, with increasing ids. */
static void t_register(void)
{
	START(.nr_cpus = 2, .params = "count=3");
	EXPECT_EQ(usim_nr_policies(), 3);
	EXPECT_STREQ(usim_policy_name(usim_policy_nth(0)), "null0");
	EXPECT_STREQ(usim_policy_name(usim_policy_nth(2)), "null2");
	EXPECT_LT(usim_policy_id(usim_policy_nth(0)), usim_policy_id(usim_policy_nth(1)));
	EXPECT_LT(usim_policy_id(usim_policy_nth(1)), usim_policy_id(usim_policy_nth(2)));
	EXPECT_EQ(uc_unload(), 0);
	EXPECT_EQ(usim_nr_policies(), 0);
}

/* count outside 1..16: module_init fails with -EINVAL, nothing registered. */
static void t_bad_count(void)
{
	struct uc_opts o = { .nr_cpus = 1, .params = "count=17", .quiet = 1 };

	EXPECT_EQ(uc_start(&o), -EINVAL);
	EXPECT_EQ(usim_nr_policies(), 0);
	uc_clear_failure();
	o.params = "count=0";
	EXPECT_EQ(uc_start(&o), -EINVAL);
	uc_clear_failure();
}

/* An earlier instance outranks a later one on a CPU; the later one's task
 * stays RUNNING, parked, and resumes first. */
static void t_precedence(void)
{
	unsigned long long picks;

	START(.nr_cpus = 1, .params = "count=2", .policy = "null1");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);		/* null1 */
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);		/* null1, waits */
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_fork_in("null0", 3, 0, 0, 0), 0);	/* outranks null1 */
	EXPECT_EQ(uc_curr(0), 3);
	EXPECT_EQ(uc_state(1), SAAKM_RUNNING);		/* parked, still RUNNING */
	picks = uc_calls(SAAKM_EV_SCHEDULE);
	EXPECT_EQ(uc_block(3), 0);
	EXPECT_EQ(uc_curr(0), 1);			/* resumes before 2 */
	EXPECT_EQ(uc_calls(SAAKM_EV_SCHEDULE), picks);	/* without asking null1 */
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_advance(10 * MS), 0);
}

/* No new_prepare/unblock_prepare: a task starts on its parent's CPU and
 * wakes on its last one, or where the core falls back to. */
static void t_default_cpus(void)
{
	START(.nr_cpus = 4, .params = "count=1");
	EXPECT_EQ(uc_fork(1, 2, 0, 0), 0);
	EXPECT_EQ(uc_cpu_of(1), 2);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_wake(1), 0);
	EXPECT_EQ(uc_cpu_of(1), 2);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_set_affinity(1, 0x3), 0);	/* asleep: its CPU is now outside */
	EXPECT_EQ(uc_wake(1), 0);		/* the default answer, then the core's fallback */
	EXPECT_EQ(uc_cpu_of(1), 0);
	EXPECT_EQ(uc_calls(SAAKM_EV_UNBLOCK_PREPARE), 0);
}

/* Unload: every task of every instance terminated, nothing left. */
static void t_unload(void)
{
	START(.nr_cpus = 2, .params = "count=3", .policy = "null2");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork_in("null0", 2, 1, 0, 0), 0);
	EXPECT_EQ(uc_fork_in("null1", 3, 1, 0, 0), 0);
	EXPECT_EQ(uc_block(2), 0);
	EXPECT_EQ(uc_unload(), 0);
	EXPECT_EQ(uc_calls(SAAKM_EV_TERMINATE), 3);
}

int main(void)
{
	printf("# saakm_nullpol (bench/nullpol/saakm_nullpol.c) on libusim\n");
	RUN(t_register, "count=3 registers null0..null2 in slot order");
	RUN(t_bad_count, "count outside 1..16 fails module_init, nothing registered");
	RUN(t_precedence, "an earlier instance outranks; the parked task resumes first");
	RUN(t_default_cpus, "default CPU choices: parent's CPU, last CPU, core fallback");
	RUN(t_unload, "unload: every instance's tasks terminated, nothing left");
	return tap_done();
}
