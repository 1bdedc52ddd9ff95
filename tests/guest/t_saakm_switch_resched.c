// SPDX-License-Identifier: GPL-2.0
/*
 * A running task that moves itself from SCHED_NORMAL to a SaaKM policy must
 * give the CPU back to the fair tasks queued behind it: the fair class
 * outranks SaaKM, so switching into the class has to reschedule. On CPU 1,
 * a fair spinner and a fair task that, told to, joins fifo and spins on:
 * from that moment, of the time the two spinners run over 2 s, the fair
 * one gets at least 90% (runtimes from /proc/PID/schedstat), in each of 3
 * rounds. The deadline server gives the fifo one about 5%. The split
 * between the two, unlike a share of the wall time, does not move with
 * how late the measuring parent wakes or what else CPU 1 runs.
 * (Without the reschedule the fifo task keeps the CPU until some fair task
 * wakes up on CPU 1, which can take seconds, or no time at all: hence the
 * rounds.)
 */
#include "saakm_test.h"
#include <signal.h>

#define CPU		1
#define ROUNDS		3
#define WINDOW_S	2.0
#define CHILD_LIFE_S	20.0	/* each child exits by itself after this */

struct shared {
	volatile int go;	/* parent: join now */
	volatile int join_err;	/* -errno if the join failed */
	volatile int ran_on;	/* the switcher ran after its join */
};

static struct shared *sh;
static pid_t hog, switcher;
static int loaded;

static int fair_hog(long unused)
{
	return spin_pinned(CPU, 0, CHILD_LIFE_S, NULL);
}

/* Spin as a fair task until told, join fifo, spin on. */
static int switch_self(long id)
{
	double end = now_s() + CHILD_LIFE_S;
	int ret;

	if (pin_to(0, CPU))
		return 1;
	while (!sh->go && now_s() < end)
		;
	/*
	 * Once in fifo this task may not run again while the fair spinner
	 * runs: the parent watches its policy from outside.
	 */
	ret = saakm_join(0, id, 0);
	if (ret)
		sh->join_err = ret;
	sh->ran_on = 1;
	while (!*stop && now_s() < end)
		;
	return 0;
}

static void stop_children(void)
{
	*stop = 1;
	stop_child(&hog, 3);
	stop_child(&switcher, 3);
}

static void cleanup(void)
{
	stop_children();
	if (loaded) {
		loaded = 0;
		unload_module("saakm_fifo");
	}
}

/* One round: the fair spinner's share of CPU 1 after the switch, -1 on error. */
static double round_share(int id, int round)
{
	long long h0, h1, s0, s1;
	double t0, t1, share;

	memset(sh, 0, sizeof(*sh));
	*stop = 0;
	hog = spawn(fair_hog, 0);
	switcher = spawn(switch_self, id);
	usleep(300000);		/* both share CPU 1 as fair tasks */
	t0 = now_s();
	h0 = task_runtime_ns(hog);
	s0 = task_runtime_ns(switcher);
	sh->go = 1;
	while (saakm_id_of(switcher) != id && !sh->join_err && now_s() < t0 + 5)
		usleep(1000);
	if (saakm_id_of(switcher) != id) {
		printf("# round %d: the switcher did not join fifo: %s\n", round,
		       sh->join_err ? strerror(-sh->join_err) : "not within 5 s");
		stop_children();
		return -1;
	}
	usleep(WINDOW_S * 1e6);
	t1 = now_s();
	h1 = task_runtime_ns(hog);
	s1 = task_runtime_ns(switcher);
	share = h1 - h0 + s1 - s0 > 0 ? (h1 - h0) / (double)(h1 - h0 + s1 - s0) : 0;
	printf("# round %d: over %.2f s from the switch, fair spinner %.0f ms (%.1f%% of the two), fifo spinner %.0f ms; it %s after its join\n",
	       round, t1 - t0, (h1 - h0) / 1e6, 100 * share, (s1 - s0) / 1e6,
	       sh->ran_on ? "ran on" : "did not run");
	if (saakm_id_of(switcher) != id)
		printf("# round %d: the switcher left fifo\n", round);
	stop_children();
	return h0 < 0 || h1 < 0 || s0 < 0 || s1 < 0 ? -1 : share;
}

int main(void)
{
	double share, worst = 1;
	int id, r;

	require_cpus(2, "switching into SaaKM reschedules");
	stop_init();
	sh = shared_mem(sizeof(*sh));
	atexit(cleanup);
	/* The parent measures from CPU 0, out of the way. */
	pin_to(0, 0);

	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	loaded = id > 0;
	TAP_CHECK(id > 0, "fifo loaded");
	if (id <= 0)
		return tap_done();

	for (r = 1; r <= ROUNDS; r++) {
		share = round_share(id, r);
		if (share < worst)
			worst = share;
	}
	if (worst >= 0.9)
		tap_ok("after switching into fifo, the fair spinner gets >= 90% of the two spinners' CPU time");
	else if (worst < 0)
		tap_not_ok("after switching into fifo, the fair spinner gets >= 90% of the two spinners' CPU time",
			   "a round could not run");
	else
		tap_not_ok("after switching into fifo, the fair spinner gets >= 90% of the two spinners' CPU time",
			   "it got %.1f%% in the worst round", 100 * worst);
	print_events("fifo");
	TAP_CHECK(policy_enabled("fifo"),
		  "fifo still enabled");
	cleanup();
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
