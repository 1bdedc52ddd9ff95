// SPDX-License-Identifier: GPL-2.0
/*
 * A correct policy is not ejected because a higher class keeps its CPU busy
 * (the CI failure of stop 13: saakm_many_tasks on the debug kernel had
 * faulty ejected for a "stall" while fair tasks, creating threads, held the
 * CPU). The stall timeout counts only the time a task waits while its CPU
 * is free for its policy.
 *
 * A SCHED_OTHER task that spins for BURST_S and sleeps for IDLE_S, again
 * and again, shares CPU 1 with NR_SPIN fifo spinners (20 ms slices). In a
 * burst the spinners get only the class's deadline server (50 ms every
 * 1 s), so most of them wait longer than the stall timeout (1 s here); in
 * the pause, the CPU is theirs again, and the watchdog sees them waiting
 * on a CPU that runs their policy. The watchdog's work item is kept on
 * CPU 0, so that it looks at CPU 1 from outside. fifo must stay enabled
 * for HOLD_S seconds, and every spinner must get CPU time meanwhile. Each
 * spinner's longest wait for the CPU is printed: it is over the timeout.
 */
#include "saakm_test.h"

#define CPU		1
#define NR_SPIN		20
#define HOLD_S		10.0
#define TIMEOUT_MS	1000
#define BURST_S		3.0
#define IDLE_S		0.5

struct shared {
	volatile int joined[NR_SPIN];
	volatile int hog_joined;
	volatile double max_gap[NR_SPIN];
};

static struct shared *sh;

/* A fifo spinner on CPU 1 that records its longest wait for the CPU. */
static int spin_fifo(long i)
{
	double end = now_s() + 4 * HOLD_S, last, t;

	if (pin_to(0, CPU) || saakm_join(0, policy_id("fifo"), 0))
		return 1;
	sh->joined[i] = 1;
	usleep(1000);	/* wake up READY in fifo's runqueue, not parked RUNNING */
	for (last = now_s(); !*stop && last < end; last = t) {
		t = now_s();
		if (t - last > sh->max_gap[i])
			sh->max_gap[i] = t - last;
	}
	return 0;
}

/* SCHED_OTHER on CPU 1: BURST_S of spinning, then IDLE_S asleep, again. */
static int bursts(long unused)
{
	double end = now_s() + 4 * HOLD_S;

	if (pin_to(0, CPU))
		return 1;
	sh->hog_joined = 1;
	while (!*stop && now_s() < end) {
		spin_for(BURST_S);
		usleep(IDLE_S * 1e6);
	}
	return 0;
}

int main(void)
{
	pid_t kids[NR_SPIN], hog;
	long long r0[NR_SPIN], r1, sum = 0, h0, h1;
	char state[64] = "", why[256] = "";
	int id, ready, ran = 0, exited;
	double t0;

	stop_init();
	sh = shared_mem(sizeof(*sh));
	require_cpus(2, "a busy CPU does not count as a stall");
	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", "slice_ms=20");
	TAP_CHECK(id > 0, "fifo loaded");
	if (id <= 0)
		return tap_done();
	/* The watchdog runs on CPU 0, beside CPU 1. */
	TAP_CHECK(watchdog_on_cpu(0, TIMEOUT_MS) == 0, "the watchdog on CPU 0, stall timeout 1 s");
	hog = spawn(bursts, 0);
	for (int i = 0; i < NR_SPIN; i++)
		kids[i] = spawn(spin_fifo, i);
	for (t0 = now_s(), ready = 0; ready < NR_SPIN + 1 && now_s() < t0 + 10; usleep(10000)) {
		ready = sh->hog_joined == 1;
		for (int i = 0; i < NR_SPIN; i++)
			ready += sh->joined[i] == 1;
	}
	TAP_CHECK(ready == NR_SPIN + 1, "a bursty SCHED_OTHER task and 20 fifo spinners on CPU 1");

	for (int i = 0; i < NR_SPIN; i++)
		r0[i] = task_runtime_ns(kids[i]);
	h0 = task_runtime_ns(hog);
	t0 = now_s();
	while (now_s() < t0 + HOLD_S && policy_enabled("fifo") == 1)
		usleep(50000);
	for (int i = 0; i < NR_SPIN; i++) {
		r1 = task_runtime_ns(kids[i]);
		ran += r0[i] >= 0 && r1 > r0[i];
		sum += r1 - r0[i];
	}
	h1 = task_runtime_ns(hog);
	printf("# CPU time in %.1f s: the hog %.0f ms, the spinners %.0f ms\n", now_s() - t0,
	       (h1 - h0) / 1e6, sum / 1e6);
	policy_state("fifo", state, sizeof(state));
	if (policy_error("fifo", why, sizeof(why)) != 0)
		why[0] = 0;
	printf("# after %.1f s: fifo %s%s%s\n", now_s() - t0, state, why[0] ? ": " : "", why);
	TAP_CHECK(!strcmp(state, saakm_policy_state_names[SAAKM_POLICY_ENABLED]),
		  "fifo still enabled after 10 s of waits longer than the timeout");
	printf("# %d of %d spinners ran during the hold; longest waits:", ran, NR_SPIN);
	for (int i = 0; i < NR_SPIN; i++)
		printf(" %.0f", sh->max_gap[i] * 1e3);
	printf(" ms\n");
	TAP_CHECK(ran == NR_SPIN, "every spinner ran: the round-robin went on");

	*stop = 1;
	TAP_CHECK(reap_all_within(kids, NR_SPIN, 10 * timeout_scale(), &exited) == NR_SPIN &&
		  reap_pid(&hog, 10 * timeout_scale(), NULL), "every task exits");
	return tap_done();
}
