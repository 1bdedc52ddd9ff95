// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of libusim's services, through the self-test policy
 * tests/policy/usim_selftest/saakm_usim_selftest.c: ordered runqueues
 * (rbtree and sorted list: order by key, arrival order among equals),
 * saakm_running_ns() through weighted CPU shares, per-task kmalloc data
 * freed or leaked (a leak fails the unload check), alloc_percpu, the
 * spinlock, an hrtimer on the logical clock, and the contract checks
 * (transitions outside their callback, a task left RUNNING by block(), a
 * second RUNNING task in one schedule(), saakm_policy_error()).
 */
#include "policy_test.h"

#define MS 1000000ULL

/* The value of module parameter @name (the self-test policy reports with them). */
static unsigned long param(const char *name)
{
	char buf[512], *at;

	usim_get_params(buf, sizeof(buf));
	at = strstr(buf, name);
	return at ? strtoul(at + strlen(name) + 1, NULL, 10) : ~0UL;
}

/* Lowest virtual runtime first; equal keys in arrival order. */
static void order(const char *params)
{
	START(.nr_cpus = 1, .params = params);
	EXPECT(uc_fork(1, 0, 0, 0) == 0);
	EXPECT(uc_fork(2, 0, 0, 0) == 0);
	EXPECT(uc_fork(3, 0, 0, 0) == 0);
	EXPECT(uc_curr(0) == 1);
	EXPECT(uc_advance(2 * MS) == 0);
	EXPECT(uc_block(1) == 0);		/* 1 has run: its key grows */
	EXPECT(uc_curr(0) == 2);		/* 2 and 3 equal: arrival order */
	EXPECT(uc_wake(1) == 0);
	EXPECT(uc_block(2) == 0);
	EXPECT(uc_curr(0) == 3);		/* 3 (key 0) before 1 */
	EXPECT(uc_block(3) == 0);
	EXPECT(uc_curr(0) == 1);
}

static void t_rbtree_order(void)
{
	order("rq_kind=2");
}

static void t_list_order(void)
{
	order("rq_kind=1");
}

/* CPU shares follow the weights: nice -20 gets about 60/21 of nice 19. */
static void t_weights(void)
{
	unsigned long long hi, lo;

	START(.nr_cpus = 1);
	EXPECT(uc_fork(1, 0, 0, -20) == 0);
	EXPECT(uc_fork(2, 0, 0, 19) == 0);
	EXPECT(uc_advance(400 * MS) == 0);
	hi = uc_runtime(1);
	lo = uc_runtime(2);
	printf("#   nice -20: %llu ms, nice 19: %llu ms\n", hi / MS, lo / MS);
	EXPECT(hi + lo == 400 * MS);
	EXPECT(hi > 2 * lo && hi < 4 * lo);
}

/* Task data is freed at unload: nothing held. */
static void t_no_leak(void)
{
	START(.nr_cpus = 2);
	EXPECT(uc_fork(1, 0, 0, 0) == 0);
	EXPECT(uc_fork(2, 0, 0, 0) == 0);
	EXPECT(uc_exit(1) == 0);
	EXPECT(usim_alloc_outstanding() == 2);	/* task 2's data, the per-CPU stats */
	EXPECT(uc_unload() == 0);
	EXPECT(usim_alloc_outstanding() == 0);
}

/* leak=Y: the unload check reports the memory still held. */
static void t_leak_found(void)
{
	START(.nr_cpus = 2, .params = "leak=Y");
	EXPECT(uc_fork(1, 0, 0, 0) == 0);
	EXPECT(uc_unload() == -1);
	EXPECT(uc_failure() && strstr(uc_failure(), "still holds 1 allocation"));
	uc_clear_failure();
}

/* An hrtimer re-armed every 10 ms fires on the logical clock; cancelled at exit. */
static void t_hrtimer(void)
{
	START(.nr_cpus = 1, .params = "timer_ms=10");
	EXPECT(param("timer_fires") == 0);
	EXPECT(uc_advance(9 * MS) == 0);
	EXPECT(param("timer_fires") == 0);
	EXPECT(uc_advance(96 * MS) == 0);	/* 105 ms */
	EXPECT(param("timer_fires") == 10);
	EXPECT(usim_nr_timers() == 1);
	EXPECT(uc_unload() == 0);
	EXPECT(usim_nr_timers() == 0);
}

/* Per-CPU counters (alloc_percpu) and the spinlock-protected total agree. */
static void t_percpu(void)
{
	int pid;

	START(.nr_cpus = 4);
	for (pid = 1; pid <= 8; pid++)
		EXPECT(uc_fork(pid, pid % 4, 1ULL << (pid % 4), 0) == 0);
	EXPECT(uc_advance(50 * MS) == 0);
	printf("#   per-CPU sum: %lu, locked total: %lu, schedule calls: %llu\n",
	       param("picks"), param("locked_picks"), uc_calls(SAAKM_EV_SCHEDULE));
	EXPECT(param("picks") == uc_calls(SAAKM_EV_SCHEDULE));
	EXPECT(param("locked_picks") == uc_calls(SAAKM_EV_SCHEDULE));
	EXPECT(param("picks") >= 8);
}

/* Run @params on one CPU with three tasks until the simulation fails; its message. */
static const char *violation(const char *params, int op)
{
	static char msg[512];
	struct uc_opts o = { .nr_cpus = 1, .params = params, .quiet = 1 };

	if (uc_start(&o))
		return "start failed";
	uc_fork(1, 0, 0, 0);
	uc_fork(2, 0, 0, 0);
	uc_fork(3, 0, 0, 0);
	if (op == 'y')
		uc_yield(1);
	else if (op == 'b')
		uc_block(1);
	else
		uc_advance(8 * MS);
	snprintf(msg, sizeof(msg), "%s", uc_failure() ? uc_failure() : "no failure");
	printf("#   %s: %s\n", params, msg);
	uc_clear_failure();
	return msg;
}

/* The state machine and the callback checks catch each violation, named. */
static void t_violations(void)
{
	EXPECT(strstr(violation("bad=1", 'y'), "RUNNING -> BLOCKED outside its callback (in yield)"));
	EXPECT(strstr(violation("bad=2", 'b'), "block left task 1 in state RUNNING"));
	EXPECT(strstr(violation("bad=3", 't'), "error: tick of task 1 on cpu 0"));
	EXPECT(strstr(violation("bad=4", 'b'), "READY -> RUNNING outside its callback (in schedule)"));
}

int main(void)
{
	printf("# libusim services through tests/policy/usim_selftest\n");
	RUN(t_rbtree_order, "rbtree runqueue: by key, arrival order among equals");
	RUN(t_list_order, "sorted list runqueue: the same order");
	RUN(t_weights, "saakm_running_ns() drives weighted shares");
	RUN(t_no_leak, "kmalloc/alloc_percpu: all freed at unload");
	RUN(t_leak_found, "leak=Y: the unload check reports the memory held");
	RUN(t_hrtimer, "hrtimer: fires every 10 ms on the logical clock, cancelled at exit");
	RUN(t_percpu, "alloc_percpu counters and the spinlock-protected total agree");
	RUN(t_violations, "contract violations are caught and named");
	return tap_done();
}
