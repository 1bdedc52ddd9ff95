// SPDX-License-Identifier: GPL-2.0
/*
 * A priority-inheritance deboost must leave a SaaKM task running as the
 * policy's RUNNING task, not queued READY while it runs, which the safety
 * net takes for a stall.
 *
 * A fifo thread on CPU 1 holds a PTHREAD_PRIO_INHERIT mutex; a SCHED_FIFO
 * thread on CPU 0 blocks on it, which boosts the holder to RT. The holder
 * sees the boost, unlocks (the deboost happens while it runs), then spins
 * for 6 s, thirty times the stall timeout the test sets (200 ms), and yields
 * (the policy's yield() must get a RUNNING task). fifo must stay enabled
 * with no error logged, and the holder must have kept its CPU.
 *
 * Nothing may reschedule CPU 1 between the unlock and the end of the spin
 * but the class itself: a yield there, or any task waking on CPU 1, lets
 * the policy pick the holder again and hides a holder left READY. So the
 * holder does not yield until the spin is over, and unbound work items run
 * on CPU 0.
 */
#include "saakm_test.h"
#include <pthread.h>

#define HOLDER_CPU	1
#define WAITER_CPU	0
#define SPIN_AFTER_S	6.0
#define STALL_MS	200

static pthread_mutex_t pi_lock;
static int policy;

static struct {
	volatile int join_err;		/* holder: saakm_join() result */
	volatile int locked;		/* holder owns pi_lock */
	volatile int boosted;		/* holder saw its priority raised */
	volatile int unlocked;		/* holder released pi_lock */
	volatile int waiter_err;	/* waiter: sched_setscheduler() errno */
	volatile int waiter_got;	/* waiter took and released pi_lock */
	volatile long long spin_ns;	/* holder CPU time over the spin */
	volatile double spin_s;		/* wall time of the spin */
	volatile int still_fifo;	/* holder in fifo at the end of its spin */
} st;

/* Field 18 of /proc/self/task/TID/stat: priority, negative when RT. */
static int my_prio(void)
{
	char path[64], buf[512], *p;
	int field, prio = 1000;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", (long)gettid());
	f = fopen(path, "r");
	if (!f)
		return prio;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		for (field = 2; p && *p; p++)
			if (*p == ' ' && ++field == 18) {
				prio = atoi(p + 1);
				break;
			}
	}
	fclose(f);
	return prio;
}

static void *holder(void *unused)
{
	double t0;
	long long c0;

	pin_to(0, HOLDER_CPU);
	st.join_err = saakm_join(0, policy, 0);
	if (st.join_err)
		return NULL;
	pthread_mutex_lock(&pi_lock);
	st.locked = 1;
	/* Wait (running) for the waiter to block on the lock and boost us. */
	for (t0 = now_s(); now_s() < t0 + 5;)
		if (my_prio() < 0) {
			st.boosted = 1;
			break;
		}
	pthread_mutex_unlock(&pi_lock);
	st.unlocked = 1;
	t0 = now_s();
	c0 = thread_cpu_ns();
	spin_for(SPIN_AFTER_S);
	st.spin_ns = thread_cpu_ns() - c0;
	st.spin_s = now_s() - t0;
	/* A running task may yield at any time: the policy must see it RUNNING. */
	sched_yield();
	st.still_fifo = saakm_id_of(0) == policy;
	return NULL;
}

static void *waiter(void *unused)
{
	struct sched_param sp = { .sched_priority = 10 };
	double t0;

	pin_to(0, WAITER_CPU);
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		st.waiter_err = errno;
		return NULL;
	}
	for (t0 = now_s(); !st.locked && now_s() < t0 + 10;)
		usleep(1000);
	if (!st.locked)
		return NULL;
	/* The holder gives the lock back after at most 5 s: this is bounded. */
	pthread_mutex_lock(&pi_lock);
	st.waiter_got = 1;
	pthread_mutex_unlock(&pi_lock);
	return NULL;
}

static int join_by(pthread_t t, double secs)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)secs;
	return pthread_timedjoin_np(t, NULL, &ts);
}

static int loaded;

static void cleanup(void)
{
	if (loaded) {
		loaded = 0;
		unload_module("saakm_fifo");
	}
}

int main(void)
{
	pthread_mutexattr_t ma;
	pthread_t h, w;
	int hj, wj;
	char why[256] = "";

	require_cpus(2, "PI deboost keeps a SaaKM task running");
	pin_to(0, WAITER_CPU);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&pi_lock, &ma);
	atexit(cleanup);

	policy = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	loaded = policy > 0;
	TAP_CHECK(policy > 0, "fifo loaded");
	if (policy <= 0)
		return tap_done();

	TAP_CHECK(watchdog_on_cpu(WAITER_CPU, STALL_MS) == 0,
		  "the watchdog on CPU 0, stall timeout 200 ms");

	pthread_create(&h, NULL, holder, NULL);
	pthread_create(&w, NULL, waiter, NULL);
	/* Waiter: holder's 5 s of waiting for the boost at most, then done. */
	wj = join_by(w, 15);
	/* Holder: at most 5 s of waiting plus its 6 s spin. */
	hj = join_by(h, 30);
	if (wj || hj) {
		tap_not_ok("both threads finished", "waiter %s, holder %s",
			   wj ? "still running" : "done", hj ? "still running" : "done");
		fflush(stdout);
		saakm_restore_files();
		_exit(tap_done());	/* threads are stuck: do not unload under them */
	}
	TAP_CHECK(!st.join_err, "the holder joined fifo");
	TAP_CHECK(!st.waiter_err, "the waiter is SCHED_FIFO");
	TAP_CHECK(st.boosted, "the holder was boosted by the RT waiter");
	TAP_CHECK(st.waiter_got, "the RT waiter got the lock after the holder released it");
	printf("# after the deboost, the holder ran %.0f ms in %.2f s\n",
	       st.spin_ns / 1e6, st.spin_s);
	TAP_CHECK(st.still_fifo, "the holder is still in fifo after spinning 6 s");
	TAP_CHECK(st.spin_ns >= 0.8 * st.spin_s * 1e9,
		  "the holder kept its CPU after the deboost");
	TAP_CHECK(policy_enabled("fifo"),
		  "fifo still enabled");
	TAP_CHECK(policy_error("fifo", why, sizeof(why)) != 0, "no error recorded for fifo");
	if (why[0])
		printf("# error of fifo: %s\n", why);
	print_events("fifo");
	cleanup();
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
