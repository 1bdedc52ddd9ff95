// SPDX-License-Identifier: GPL-2.0
/*
 * A policy without unblock_prepare() is not ejected when a task wakes up
 * with an affinity that no longer holds its last CPU (found by the libusim
 * stress, tests/policy: nullpol at seed 6).
 *
 * Without unblock_prepare() the class's default answer is the task's last
 * CPU. The core may ask for a CPU the task may not use that way, and falls
 * back on its own (select_fallback_rq()); only a CPU the policy itself
 * chose must be in the affinity. A task of null0 (bench/nullpol, the
 * mandatory callbacks only) sleeps on CPU 2 while its affinity becomes
 * CPUs 0-1, then wakes: null0 must stay enabled and the task run on CPU 0
 * or 1. Needs 3 CPUs (with 2, the new affinity would be a single CPU, for
 * which the core does not ask the class): tests/all.sh runs it in a small
 * pass of its own with 4 vCPUs.
 */
#include "saakm_test.h"

SAAKM_TAG("opt-in");

#define NULLPOL		"bench/nullpol/saakm_nullpol.ko"

struct shared {
	volatile int joined;	/* 1, or -errno */
	volatile int slept;	/* the child is about to sleep on CPU 2 */
	volatile int cpu_after;	/* the CPU it ran on after waking, or -1 */
};

static struct shared *sh;

/* Join null0 on CPU 2, sleep there, wake to report where it runs. */
static int child(long id)
{
	int ret = pin_to(0, 2);

	if (!ret)
		ret = saakm_join(0, id, 0);
	sh->joined = ret ? ret : 1;
	if (ret)
		return 1;
	sh->slept = 1;
	usleep(500000);		/* the parent changes the affinity meanwhile */
	sh->cpu_after = sched_getcpu();
	return 0;
}

int main(void)
{
	char state[64] = "", why[256] = "";
	cpu_set_t two;
	pid_t kid;
	int id, status;
	double t0;

	if (nr_cpus() < 3) {
		printf("1..0 # SKIP needs 3 CPUs (tests/all.sh runs it with 4)\n");
		return 0;
	}
	sh = shared_mem(sizeof(*sh));
	sh->cpu_after = -1;
	id = load_policy("null0", NULLPOL, "count=1");
	TAP_CHECK(id > 0, "nullpol loaded (null0)");
	if (id <= 0)
		return tap_done();

	kid = spawn(child, id);
	for (t0 = now_s(); !sh->slept && sh->joined >= 0 && now_s() < t0 + 10;)
		usleep(1000);
	TAP_CHECK(sh->joined == 1 && sh->slept, "a task of null0 sleeps on CPU 2");
	usleep(100000);
	CPU_ZERO(&two);
	CPU_SET(0, &two);
	CPU_SET(1, &two);
	TAP_CHECK(sched_setaffinity(kid, sizeof(two), &two) == 0,
		  "its affinity becomes CPUs 0-1 while it sleeps");
	TAP_CHECK(reap_within(kid, 10, &status) == 0 && WIFEXITED(status) &&
		  WEXITSTATUS(status) == 0, "it wakes up and exits");
	printf("# it ran on CPU %d after waking\n", sh->cpu_after);
	TAP_CHECK(sh->cpu_after == 0 || sh->cpu_after == 1, "it ran on CPU 0 or 1");
	policy_state("null0", state, sizeof(state));
	if (policy_error("null0", why, sizeof(why)) != 0)
		why[0] = 0;
	printf("# null0 %s%s%s\n", state, why[0] ? ": " : "", why);
	TAP_CHECK(!strcmp(state, saakm_policy_state_names[SAAKM_POLICY_ENABLED]),
		  "null0 still enabled");
	TAP_CHECK(unload_module("saakm_nullpol") == 0, "nullpol unloads");
	return tap_done();
}
