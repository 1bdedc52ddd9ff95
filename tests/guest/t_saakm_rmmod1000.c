// SPDX-License-Identifier: GPL-2.0
/*
 * Unloading a policy with 1,000 tasks attached (threads, sleeping and
 * waking): none is lost, all end in SCHED_NORMAL and finish. Each thread
 * reports the policy it sees itself in once the module is gone, and the
 * threads are joined with a deadline, so a lost one fails the test.
 */
#include "saakm_test.h"
#include <pthread.h>

#define NR 1000

static volatile int done_flag;
static pid_t tids[NR];

/*
 * Each thread wakes every 50 ms: 20,000 wakeups a second in all. The debug
 * kernel under TCG spends several hundred microseconds per wakeup, so there
 * the threads would saturate both vCPUs and starve the test itself; they
 * wake every 50 ms times SAAKM_TIMEOUT_SCALE squared instead (800 ms).
 */
static useconds_t wake_us = 50000;

/* Sleeps and wakes until done_flag; returns 1 if it then ran in SCHED_NORMAL. */
static void *thread_fn(void *arg)
{
	long i = (long)arg;

	tids[i] = gettid();
	while (!done_flag)
		usleep(wake_us);
	return (void *)(long)(sched_getscheduler(0) == SCHED_OTHER);
}

int main(void)
{
	pthread_t th[NR];
	pthread_attr_t attr;
	struct timespec deadline;
	int id, joined = 0, created = 0, normal = 0, finished = 0, finished_normal = 0;
	char alive[NR] = { 0 };
	void *ret;

	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	TAP_CHECK(id > 0, "fifo loaded");
	if (id <= 0)
		return tap_done();
	wake_us *= timeout_scale() * timeout_scale();
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (long i = 0; i < NR; i++) {
		alive[i] = !pthread_create(&th[i], &attr, thread_fn, (void *)i);
		created += alive[i];
	}
	TAP_CHECK(created == NR, "1000 threads created");
	for (int t = 0; t < 500; t++) {
		int seen = 0;

		for (int i = 0; i < NR; i++)
			seen += tids[i] != 0;
		if (seen == NR)
			break;
		usleep(10000);
	}
	for (int i = 0; i < NR; i++)
		joined += tids[i] && !saakm_join(tids[i], id, 0);
	TAP_CHECK(joined == NR && policy_tasks("fifo") == NR, "1000 tasks attached to fifo");
	usleep(300000);

	double t0 = now_s();

	TAP_CHECK(unload_module("saakm_fifo") == 0, "rmmod saakm_fifo with 1000 tasks attached");
	printf("# rmmod took %.0f ms\n", (now_s() - t0) * 1000);
	for (int i = 0; i < NR; i++)
		normal += sched_getscheduler(tids[i]) == SCHED_OTHER;
	TAP_CHECK(normal == NR, "all 1000 tasks are in SCHED_NORMAL");
	done_flag = 1;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 30 * timeout_scale();
	for (int i = 0; i < NR; i++) {
		if (!alive[i] || pthread_timedjoin_np(th[i], &ret, &deadline))
			continue;
		finished++;
		finished_normal += ret == (void *)1L;
	}
	printf("# %d of %d threads finished within %d s, %d of them in SCHED_NORMAL\n",
	       finished, NR, 30 * timeout_scale(), finished_normal);
	TAP_CHECK(finished == NR && finished_normal == NR,
		  "all 1000 tasks finish, in SCHED_NORMAL: none lost");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
