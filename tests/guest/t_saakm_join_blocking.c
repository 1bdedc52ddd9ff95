// SPDX-License-Identifier: GPL-2.0
/*
 * Joining a task while it blocks. A task that is going to sleep is still its
 * CPU's current task until the switch, and the CPU can drop its rq lock
 * before that (the fair class's newly-idle balance does, when another CPU
 * is overloaded). A sched_setattr() from another CPU can take the lock in
 * that window and move the task, current but no longer queued, into the
 * class. The class once made such a task RUNNING there; when it woke, its
 * enqueue left it RUNNING in no runqueue, never picked: a task lost (the
 * watchdog found one in saakm_affinity under host load).
 *
 * Here a task on the last CPU sleeps ~50 us in a loop, CPU 0 is kept
 * overloaded, and the test joins it to fifo and moves it back to
 * SCHED_NORMAL over and over (30,000 times or 20 s; in make test-full
 * 60,000 times or 40 s), checking after each join that it still runs.
 */
#include "saakm_test.h"

SAAKM_TAG("timeout=300");

/*
 * Before the fix about one join in 20,000 lost the task (TCG guest): make
 * test joins up to 30,000 times in 20 s, make test-full 60,000 in 40 s.
 */

static volatile long *loops;

/* Sleep and wake as often as possible: each sleep is a chance to race. */
static int nap_loop(long cpu)
{
	if (pin_to(0, (int)cpu))
		return 1;
	while (!*stop) {
		(*loops)++;
		usleep(50);
	}
	return 0;
}

static int fair_spin(long cpu)
{
	if (pin_to(0, (int)cpu))
		return 1;
	while (!*stop)
		;
	return 0;
}

/* True once the napper has looped again, within @limit_s. */
static int runs_on(double limit_s)
{
	long before = *loops;
	double t0 = now_s();

	while (*loops == before)
		if (now_s() - t0 > limit_s)
			return 0;
	return 1;
}

int main(void)
{
	double limit_s = 2.0 * timeout_scale();
	long rounds = tier_size("SAAKM_JOIN_ROUNDS", 30000, 60000);
	double max_secs = env_is_1("SAAKM_FULL") ? 40.0 : 20.0;
	int last = nr_cpus() - 1, id, round, lost = 0, err = 0;
	double t0;
	pid_t napper, spin;

	require_cpus(2, "a task joined while it blocks on another CPU");
	stop_init();
	loops = shared_mem(sizeof(*loops));
	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	TAP_CHECK(id > 0, "fifo loaded");
	if (id <= 0)
		return tap_done();

	/* CPU 0 overloaded (this test and a spinner): newly-idle balancing runs. */
	pin_to(0, 0);
	spin = spawn(fair_spin, 0);
	napper = spawn(nap_loop, last);
	TAP_CHECK(runs_on(limit_s), "the napper runs on the last CPU");

	t0 = now_s();
	for (round = 0; round < rounds && !lost && !err && now_s() - t0 < max_secs; round++) {
		err = saakm_join(napper, id, 0);
		if (!err && !runs_on(limit_s)) {
			char why[256] = "";

			/* Leaving would rescue it: let the watchdog say where it is. */
			lost = 1;
			if (wait_ejected("fifo", why, sizeof(why), 10000L * timeout_scale()) >= 0)
				printf("# watchdog: %s\n", why);
		}
		if (!err)
			err = saakm_leave(napper);
	}
	if (lost || err)
		printf("# round %d: %s\n", round, lost ? "the napper stopped running after it joined"
						      : strerror(-err));
	printf("# %d joins in %.1f s\n", round, now_s() - t0);
	TAP_CHECK(!lost && !err, "joins while the task sleeps and wakes: it runs after every one");

	*stop = 1;
	TAP_CHECK(reaped_ok(napper) && reaped_ok(spin), "both tasks finish");
	TAP_CHECK(unload_module("saakm_fifo") == 0, "rmmod saakm_fifo");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
