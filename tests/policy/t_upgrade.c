// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of a live upgrade, and the example of how to test one's
 * own upgrade_export()/upgrade_import() pair without a guest: the two
 * versions of the upfifo test policy (tests/modules/saakm_upfifo) are
 * linked into one program, module 0 (version 1) is loaded, and
 * uc_upgrade(1) loads version 2, which takes the policy over as it does
 * in the kernel.
 *
 * Module parameters are found by name, and both versions have the same
 * names: a parameter set here is version 1's. uc_unload() checks that
 * nothing is left allocated: the per-task data version 1 allocated must be
 * carried over to version 2, which frees it.
 */
#include "policy_test.h"

#define MS 1000000ULL

/*
 * The READY tasks keep their queue order (4, 1, 2 here, not the order they
 * joined in), the running task runs on, and every task keeps its data.
 */
static void t_upgrade_keeps_tasks(void)
{
	struct saakm_policy *pol;
	int i, order[4];

	START(.nr_cpus = 1, .policy = "upfifo");
	pol = uc_policy();
	for (i = 1; i <= 4; i++)
		EXPECT_EQ(uc_fork(i, 0, 0, 0), 0);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_block(2), 0);
	EXPECT_EQ(uc_wake(1), 0);
	EXPECT_EQ(uc_wake(2), 0);
	EXPECT_EQ(uc_curr(0), 3);
	EXPECT_EQ(uc_nr_ready(0), 3);
	EXPECT_EQ(uc_upgrade(1), 0);
	EXPECT(uc_policy() == pol);
	EXPECT_EQ(usim_policy_generation(pol), 1);
	EXPECT_EQ(uc_unload_module(0), 0);	/* the old version leaves */
	EXPECT_EQ(uc_curr(0), 3);		/* the running task runs on */
	EXPECT_EQ(uc_nr_ready(0), 3);
	for (i = 0; i < 4; i++) {
		order[i] = uc_curr(0);
		EXPECT_EQ(uc_block(order[i]), 0);
	}
	printf("#   order: %d %d %d %d\n", order[0], order[1], order[2], order[3]);
	EXPECT_EQ(order[0], 3);
	EXPECT_EQ(order[1], 4);
	EXPECT_EQ(order[2], 1);
	EXPECT_EQ(order[3], 2);
	for (i = 1; i <= 4; i++)
		EXPECT_EQ(uc_wake(i), 0);
	EXPECT_EQ(uc_advance(50 * MS), 0);
	EXPECT_EQ(uc_unload(), 0);
}

/* A version whose format the new one cannot read keeps the policy. */
static void t_upgrade_refused(void)
{
	struct saakm_policy *pol;

	START(.nr_cpus = 2, .policy = "upfifo", .params = "format=7");
	pol = uc_policy();
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_upgrade(1), -EPROTO);
	EXPECT_EQ(usim_policy_generation(pol), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_nr_ready(0), 1);
	EXPECT_EQ(uc_advance(50 * MS), 0);
	EXPECT_EQ(uc_unload(), 0);
}

/*
 * A read-only status parameter (picks: a .get and no .set) is in every
 * recording's parameters, as sysfs shows it; replay applies them at load,
 * and must pass over it, as the kernel never sets it.
 */
static void t_status_param(void)
{
	char buf[32];

	START(.nr_cpus = 1, .policy = "upfifo", .params = "picks=12 format=1");
	EXPECT_EQ(usim_param_read("picks", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "0");
	EXPECT_EQ(usim_param_write("picks", "5"), -EPERM);
	EXPECT_EQ(uc_unload(), 0);
}

int main(void)
{
	printf("# live upgrade between the two versions of upfifo on libusim\n");
	RUN(t_upgrade_keeps_tasks, "upgrade: queue order, running task and task data kept");
	RUN(t_upgrade_refused, "upgrade refused: the old version runs on, untouched");
	RUN(t_status_param, "a recorded read-only parameter is passed over at load");
	return tap_done();
}
