// SPDX-License-Identifier: GPL-2.0
/*
 * Does a SCHED_DEADLINE task that is moved to another class and back ever
 * stop running for good? saakm_fuzz's targets did, on the debug kernel
 * (2026-11-23): a target left in SCHED_DEADLINE was runnable, throttled
 * (dl.runtime -744557, its deadline 35 ms in the past) and never ran
 * again, not even to die of SIGKILL.
 *
 * A child spins 200 us, sleeps 2 ms and counts its loops. The parent moves
 * it to DEADLINE (1 ms every 100 ms, which the child overruns), checks
 * that it still counts within 1 s, waits 1..60 ms, moves it to the other
 * class and waits 1..60 ms again, for DL_SWITCH_SECS (30). The other class
 * is SCHED_OTHER (DL_SWITCH_TO=other, the default), which tells whether
 * plain 6.12 has the problem, or the fifo policy (DL_SWITCH_TO=saakm).
 * Opt-in: an investigation, not a check of SaaKM. On 2026-11-23 it failed
 * after 19 moves to SCHED_OTHER on both kernels, and after 45 moves to fifo
 * on the debug kernel (the stuck task: dl.runtime < 0, its deadline past).
 */
#include "saakm_test.h"

SAAKM_TAG("opt-in");
SAAKM_TAG("timeout=300");

static int to_deadline(pid_t pid)
{
	struct saakm_sched_attr a = {
		.size = sizeof(a), .sched_policy = SCHED_DEADLINE,
		.sched_runtime = 1000000, .sched_deadline = 100000000,
		.sched_period = 100000000,
	};

	return sys_setattr(pid, &a);
}

static int count_loops(long shared)
{
	volatile unsigned long *count = (void *)shared;

	for (;;) {
		spin_for(0.0002);
		(*count)++;
		usleep(2000);
	}
	return 0;
}

int main(void)
{
	const char *to = getenv("DL_SWITCH_TO") ? getenv("DL_SWITCH_TO") : "other";
	double secs = getenv("DL_SWITCH_SECS") ? atof(getenv("DL_SWITCH_SECS")) : 30;
	volatile unsigned long *count = shared_mem(sizeof(*count));
	unsigned int seed = 1, moves = 0;
	int saakm = !strcmp(to, "saakm"), id = 0, stuck = 0, err = 0;
	double start, end;
	pid_t pid;

	if (saakm) {
		id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
		TAP_CHECK(id > 0, "fifo loaded");
	}
	pid = spawn(count_loops, (long)count);
	start = now_s();
	for (end = start + secs; now_s() < end && !stuck && !err; moves++) {
		unsigned long c;
		double t;

		err = to_deadline(pid);
		c = *count;
		for (t = now_s(); *count == c && now_s() < t + 1.0; )
			usleep(1000);
		stuck = *count == c;
		usleep(1000 * (1 + rand_r(&seed) % 60));
		if (!err && !stuck)
			err = saakm ? saakm_join(pid, id, 0) : saakm_leave(pid);
		usleep(1000 * (1 + rand_r(&seed) % 60));
	}
	printf("# %u moves DEADLINE <-> %s in %.1f s\n", moves, to, now_s() - start);
	if (err)
		printf("# a move failed: %s\n", strerror(-err));
	TAP_CHECK(!err, "every move succeeded");
	if (stuck) {
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "grep -E 'policy|dl\\.|nr_switches' /proc/%d/sched | sed 's/^/# /'", pid);
		fflush(stdout);
		if (system(cmd))
			printf("# /proc/%d/sched unreadable\n", pid);
	}
	TAP_CHECK(!stuck, "the DEADLINE task always ran again within 1 s of a move back");
	if (stuck) {	/* does a move to SCHED_OTHER free it? */
		unsigned long c = *count;
		double t;

		saakm_leave(pid);
		for (t = now_s(); *count == c && now_s() < t + 1.0; )
			usleep(1000);
		printf("# moved to SCHED_OTHER, it %s\n", *count != c ? "runs again" : "still does not run");
	}
	return tap_done();
}
