// SPDX-License-Identifier: GPL-2.0
/*
 * A SaaKM task that holds something others wait for must not be starved
 * for ever by a real-time task on its CPU: the class's
 * deadline server lets it run a little, so it finishes and the fair tasks
 * waiting on it go on.
 *
 * 1. A fifo thread on CPU 1 holds a plain pthread mutex; a SCHED_FIFO hog
 *    takes CPU 1; the fifo thread spins 20 ms more (CPU time), then unlocks.
 *    A fair thread on CPU 0 waiting for the mutex gets it within 2 s of the
 *    hog's start.
 * 2. A fifo process on CPU 1 forks and execs /bin/true in a loop; the hog
 *    takes CPU 1 (so a child is likely caught in the middle of an exec) and
 *    the loop is told to stop; the fair parent on CPU 0 waiting for it
 *    (waitpid) sees it finish within 8 s of the hog's start.
 *
 * Every hog exits by itself (6 s, 12 s), so a failure cannot leave the
 * guest hogged; every wait is bounded.
 */
#include "saakm_test.h"
#include <pthread.h>
#include <signal.h>

#define CPU		1
#define LOCK_HOG_S	6.0
#define LOCK_LIMIT_S	2.0
#define EXEC_HOG_S	12.0
#define EXEC_LIMIT_S	8.0
#define HOLD_SPIN_NS	20000000LL

struct shared {
	volatile int hog_started;
	volatile int hog_done;
	volatile int exec_ready;	/* exec loop: 1 in fifo, <0 -errno */
	volatile int execs;		/* exec loop: /bin/true runs so far */
};

static struct shared *sh;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t hog, looper;
static int policy, loaded;

static int rt_hog(long ms)
{
	return rt_spin(CPU, ms / 1000.0, &sh->hog_started, &sh->hog_done);
}

static int start_hog(double secs)
{
	double t0;

	sh->hog_started = sh->hog_done = 0;
	hog = spawn(rt_hog, (long)(secs * 1000));
	for (t0 = now_s(); !sh->hog_started && now_s() < t0 + 5;)
		usleep(500);
	return sh->hog_started ? 0 : -1;
}

/* The hog ends by itself: wait for it, kill it only if that fails. */
static void end_hog(void)
{
	stop_child(&hog, EXEC_HOG_S + 2);
}

/* --- 1. a mutex held by a SaaKM thread --- */

static struct {
	volatile int join_err;
	volatile int locked;
	volatile int released;
	volatile int got;	/* fair waiter: 1 got it, <0 -error */
	volatile double wait_s;
} mx;

static void *fifo_holder(void *unused)
{
	long long c0;
	double t0;

	pin_to(0, CPU);
	mx.join_err = saakm_join(0, policy, 0);
	if (mx.join_err)
		return NULL;
	pthread_mutex_lock(&lock);
	mx.locked = 1;
	/* Hold it until the hog took the CPU (bounded), then 20 ms more. */
	for (t0 = now_s(); !sh->hog_started && now_s() < t0 + 10;)
		;
	for (c0 = thread_cpu_ns(); thread_cpu_ns() - c0 < HOLD_SPIN_NS;)
		;
	pthread_mutex_unlock(&lock);
	mx.released = 1;
	return NULL;
}

static void *fair_waiter(void *unused)
{
	struct timespec ts;
	double t0;
	int ret;

	pin_to(0, 0);
	for (t0 = now_s(); !sh->hog_started && now_s() < t0 + 10;)
		usleep(500);
	t0 = now_s();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)LOCK_LIMIT_S;
	ret = pthread_mutex_clocklock(&lock, CLOCK_MONOTONIC, &ts);
	mx.wait_s = now_s() - t0;
	mx.got = ret ? -ret : 1;
	if (!ret)
		pthread_mutex_unlock(&lock);
	return NULL;
}

static int join_by(pthread_t t, double secs)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)secs + 1;
	return pthread_timedjoin_np(t, NULL, &ts);
}

static void test_mutex(void)
{
	pthread_t h, w;
	double t0;
	int hj, wj;

	pthread_create(&h, NULL, fifo_holder, NULL);
	for (t0 = now_s(); !mx.locked && !mx.join_err && now_s() < t0 + 5;)
		usleep(1000);
	if (!mx.locked) {
		tap_not_ok("mutex: the fifo thread took the mutex", "%s",
			   mx.join_err ? strerror(-mx.join_err) : "not within 5 s");
		join_by(h, 20);
		return;
	}
	pthread_create(&w, NULL, fair_waiter, NULL);
	usleep(50000);		/* the waiter blocks on the mutex */
	if (start_hog(LOCK_HOG_S))
		tap_not_ok("mutex: the RT hog started", "not within 5 s");
	/* Bounded: the waiter by its timeout, the holder by the hog's end. */
	wj = join_by(w, LOCK_LIMIT_S + 10);
	end_hog();
	hj = join_by(h, 10);
	printf("# mutex: the fair waiter %s after %.2f s\n",
	       mx.got == 1 ? "got the mutex" : "gave up", mx.wait_s);
	if (mx.got == 1 && mx.wait_s <= LOCK_LIMIT_S)
		tap_ok("mutex: a fair waiter gets a mutex a starved fifo thread held, within 2 s");
	else
		tap_not_ok("mutex: a fair waiter gets a mutex a starved fifo thread held, within 2 s",
			   "%s after %.2f s", mx.got == 1 ? "got it" : strerror(-mx.got), mx.wait_s);
	TAP_CHECK(!wj && !hj && mx.released, "mutex: both threads finished");
	if (wj || hj) {
		fflush(stdout);
		_exit(tap_done());	/* stuck threads: do not unload under them */
	}
}

/* --- 2. a SaaKM process in the middle of exec --- */

static int exec_loop(long unused)
{
	double end = now_s() + 3 * EXEC_HOG_S;
	int ret;

	pin_to(0, CPU);
	ret = saakm_join(0, policy, 0);
	sh->exec_ready = ret ? ret : 1;
	if (ret)
		return 1;
	while (!*stop && now_s() < end) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			return 1;
		sh->execs++;
	}
	return 0;
}

static void test_exec(void)
{
	double t0, waited;
	int status, done;

	*stop = 0;
	looper = spawn(exec_loop, 0);
	for (t0 = now_s(); !sh->exec_ready && now_s() < t0 + 5;)
		usleep(1000);
	if (sh->exec_ready != 1) {
		tap_not_ok("exec: the loop joined fifo", "%s",
			   sh->exec_ready ? strerror(-sh->exec_ready) : "not within 5 s");
		return;
	}
	/* Let it get going, then take its CPU and tell it to stop. */
	while (sh->execs < 3 && now_s() < t0 + 10)
		usleep(10000);
	if (start_hog(EXEC_HOG_S))
		tap_not_ok("exec: the RT hog started", "not within 5 s");
	t0 = now_s();
	*stop = 1;
	done = reap_pid(&looper, EXEC_LIMIT_S, &status);
	waited = now_s() - t0;
	printf("# exec: %d execs before the hog; the fair parent waited %.2f s%s\n",
	       sh->execs, waited, done ? "" : " and gave up");
#define EXEC_DESC "exec: a fair task waiting for an exec'ing fifo task under an RT hog goes on within 8 s"
	if (!done)
		tap_not_ok(EXEC_DESC, "not finished after %.1f s", waited);
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		tap_not_ok(EXEC_DESC, "the loop ended with status 0x%x", status);
	else
		tap_ok(EXEC_DESC);
	end_hog();
	stop_child(&looper, 10);
}

static void cleanup(void)
{
	if (stop)
		*stop = 1;
	end_hog();
	stop_child(&looper, 10);
	if (loaded) {
		loaded = 0;
		unload_module("saakm_fifo");
	}
}

int main(void)
{
	require_cpus(2, "SaaKM tasks under an RT hog");
	stop_init();
	sh = shared_mem(sizeof(*sh));
	atexit(cleanup);
	pin_to(0, 0);

	policy = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	loaded = policy > 0;
	TAP_CHECK(policy > 0, "fifo loaded");
	if (policy <= 0)
		return tap_done();

	test_mutex();
	test_exec();

	TAP_CHECK(policy_enabled("fifo"),
		  "fifo still enabled");
	cleanup();
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
