// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM basics under the FIFO policy: load and listing, joining with
 * sched_setattr(), CPU-bound and sleep/wake tasks completing, inheritance
 * and reset-on-fork, the errors of the ABI, leaving, and unloading.
 */
#include "saakm_test.h"
#include <sys/mman.h>

static int cpu_bound(long iters)
{
	volatile unsigned long x = 0;

	for (long i = 0; i < iters; i++)
		x += i;
	return sched_getscheduler(0) == SCHED_SAAKM ? 0 : 1;
}

static int sleep_rounds(long rounds)
{
	for (long i = 0; i < rounds; i++)
		usleep(1000);
	return sched_getscheduler(0) == SCHED_SAAKM ? 0 : 1;
}

static int child_policy(long unused __attribute__((unused)))
{
	return sched_getscheduler(0);
}

/* Fork once; return the child's sched_getscheduler() (its exit status). */
static int policy_of_child(void)
{
	int status;
	pid_t pid = spawn(child_policy, 0);

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void check_errors(int id)
{
	struct saakm_sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_SAAKM };
	struct sched_param sp = { 0 };
	char big[8192] = { 0 };
	char *unmapped;
	int ret;

	a.sched_saakm_id = 9999;
	ret = sys_setattr(0, &a);
	TAP_CHECK(ret == -EINVAL, "unknown policy id gives EINVAL");

	a.sched_saakm_id = id;
	a.size = 30;
	ret = sys_setattr(0, &a);
	TAP_CHECK(ret == -E2BIG, "attr size below VER0 gives E2BIG");

	memcpy(big, &a, sizeof(a));
	((struct saakm_sched_attr *)big)->size = sizeof(big);
	ret = syscall(SYS_sched_setattr, 0, big, 0) ? -errno : 0;
	TAP_CHECK(ret == -E2BIG, "attr size above PAGE_SIZE gives E2BIG");

	a.size = sizeof(a);
	a.sched_saakm_attr_size = 4097;
	a.sched_saakm_attr = (uintptr_t)big;
	ret = sys_setattr(0, &a);
	TAP_CHECK(ret == -E2BIG, "policy blob over 4096 bytes gives E2BIG");

	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a.sched_saakm_attr_size = 16;
	a.sched_saakm_attr = (uintptr_t)unmapped;
	ret = sys_setattr(0, &a);
	TAP_CHECK(ret == -EFAULT, "unreadable policy blob gives EFAULT");
	munmap(unmapped, 4096);

	a.sched_saakm_attr_size = 0;
	a.sched_saakm_attr = 0;
	a.size = SAAKM_ATTR_VER0;
	ret = sys_setattr(0, &a);
	TAP_CHECK(ret == -EINVAL, "VER0 attr (no policy id) gives EINVAL");

	ret = sched_setscheduler(0, SCHED_SAAKM, &sp) ? -errno : 0;
	TAP_CHECK(ret == -EINVAL, "sched_setscheduler(SCHED_SAAKM) without id gives EINVAL");
	TAP_CHECK(sched_getscheduler(0) == SCHED_OTHER, "failed calls left the task in SCHED_OTHER");
}

int main(void)
{
	struct saakm_sched_attr a;
	pid_t kids[4];
	int id, ok;

	tap_subtest("load");
	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	TAP_CHECK(id > 0, "fifo loads and is listed in /proc/saakm/policies");
	if (id <= 0)
		return tap_done();

	tap_subtest("abi errors");
	check_errors(id);

	tap_subtest("join");
	TAP_CHECK(saakm_join(0, id, 0) == 0, "sched_setattr(SCHED_SAAKM, fifo) succeeds");
	TAP_CHECK(sched_getscheduler(0) == SCHED_SAAKM, "sched_getscheduler() is 8");
	TAP_CHECK(saakm_id_of(0) == id, "sched_getattr() reports the policy id");
	memset(&a, 0, sizeof(a));
	TAP_CHECK(sys_getattr(0, &a, SAAKM_ATTR_VER0) == 0 && a.size == SAAKM_ATTR_VER0,
		  "VER0 sched_getattr() still works");
	TAP_CHECK(policy_tasks("fifo") >= 1, "the task is counted in /proc/saakm/policies");

	tap_subtest("fork");
	TAP_CHECK(policy_of_child() == SCHED_SAAKM, "a child inherits SCHED_SAAKM");

	kids[0] = spawn(cpu_bound, 50000000L);
	kids[1] = spawn(cpu_bound, 20000000L);
	kids[2] = spawn(sleep_rounds, 200);
	kids[3] = spawn(sleep_rounds, 100);
	ok = 1;
	for (int i = 0; i < 4; i++)
		ok &= reaped_ok(kids[i]);
	TAP_CHECK(ok, "CPU-bound and sleep/wake children complete under fifo");

	tap_subtest("reset-on-fork");
	TAP_CHECK(saakm_join(0, id, SAAKM_RESET_ON_FORK) == 0, "set reset-on-fork");
	TAP_CHECK(policy_of_child() == SCHED_OTHER, "reset-on-fork: the child starts in SCHED_OTHER");

	tap_subtest("leave and unload");
	TAP_CHECK(saakm_leave(0) == 0 && sched_getscheduler(0) == SCHED_OTHER,
		  "back to SCHED_OTHER");
	TAP_CHECK(policy_tasks("fifo") == 0, "no task left on fifo");
	TAP_CHECK(unload_module("saakm_fifo") == 0, "rmmod saakm_fifo");
	TAP_CHECK(policy_id("fifo") < 0, "fifo is gone from /proc/saakm/policies");
	return tap_done();
}
