// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of libusim's services, through the self-test policy
 * tests/policy/usim_selftest/saakm_usim_selftest.c: ordered runqueues
 * (rbtree and sorted list: order by key, arrival order among equals),
 * saakm_running_ns() through weighted CPU shares, per-task kmalloc data
 * freed or leaked (a leak fails the unload check), alloc_percpu, the
 * spinlock, an hrtimer on the logical clock, and the contract checks
 * (transitions outside their callback, a task left RUNNING by block(), a
 * second RUNNING task in one schedule(), saakm_policy_error()); and the
 * API of 2026-11-22: saakm_kick_cpu() from pinned per-CPU hrtimers into
 * preempt(), module_param_cb() validation at load and at write,
 * saakm_nice_weight(), struct saakm_attr's runtime, and sched_setattr()'s
 * nice range; and the simulator's own refusals of operations that do not
 * apply (uc_refusal()).
 */
#include "policy_test.h"

#define MS 1000000ULL
#define US 1000ULL

/* libusim's, declared here: the driver sees the uapi header, not <linux/saakm.h>. */
unsigned int saakm_nice_weight(int nice);
struct cpumask;
const struct cpumask *saakm_topo_mask(int cpu, int level);
int saakm_idle_cpu(struct saakm_policy *pol, struct task_struct *p,
		   const struct cpumask *mask, int first);
unsigned int saakm_llc_nr_running(struct saakm_policy *pol, int cpu);
#define TOPO_LLC 2	/* SAAKM_TOPO_LLC */

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
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(3, 0, 0, 0), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_advance(2 * MS), 0);
	EXPECT_EQ(uc_block(1), 0);		/* 1 has run: its key grows */
	EXPECT_EQ(uc_curr(0), 2);		/* 2 and 3 equal: arrival order */
	EXPECT_EQ(uc_wake(1), 0);
	EXPECT_EQ(uc_block(2), 0);
	EXPECT_EQ(uc_curr(0), 3);		/* 3 (key 0) before 1 */
	EXPECT_EQ(uc_block(3), 0);
	EXPECT_EQ(uc_curr(0), 1);
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
	EXPECT_EQ(uc_fork(1, 0, 0, -20), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 19), 0);
	EXPECT_EQ(uc_advance(400 * MS), 0);
	hi = uc_runtime(1);
	lo = uc_runtime(2);
	printf("#   nice -20: %llu ms, nice 19: %llu ms\n", hi / MS, lo / MS);
	EXPECT_EQ(hi + lo, 400 * MS);
	EXPECT_GT(hi, 2 * lo);
	EXPECT_LT(hi, 4 * lo);
}

/* Task data is freed at unload: nothing held. */
static void t_no_leak(void)
{
	START(.nr_cpus = 2);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_exit(1), 0);
	EXPECT_EQ(usim_alloc_outstanding(), 2);	/* task 2's data, the per-CPU stats */
	EXPECT_EQ(uc_unload(), 0);
	EXPECT_EQ(usim_alloc_outstanding(), 0);
}

/* leak=Y: the unload check reports the memory still held. */
static void t_leak_found(void)
{
	START(.nr_cpus = 2, .params = "leak=Y");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_unload(), -1);
	EXPECT(uc_failure() && strstr(uc_failure(), "still holds 1 allocation"));
	uc_clear_failure();
}

/* An hrtimer re-armed every 10 ms fires on the logical clock; cancelled at exit. */
static void t_hrtimer(void)
{
	START(.nr_cpus = 1, .params = "timer_ms=10");
	EXPECT_EQ(param("timer_fires"), 0);
	EXPECT_EQ(uc_advance(9 * MS), 0);
	EXPECT_EQ(param("timer_fires"), 0);
	EXPECT_EQ(uc_advance(96 * MS), 0);	/* 105 ms */
	EXPECT_EQ(param("timer_fires"), 10);
	EXPECT_EQ(usim_nr_timers(), 1);
	EXPECT_EQ(uc_unload(), 0);
	EXPECT_EQ(usim_nr_timers(), 0);
}

/* Per-CPU counters (alloc_percpu) and the spinlock-protected total agree. */
static void t_percpu(void)
{
	int pid;

	START(.nr_cpus = 4);
	for (pid = 1; pid <= 8; pid++)
		EXPECT_EQ(uc_fork(pid, pid % 4, 1ULL << (pid % 4), 0), 0);
	EXPECT_EQ(uc_advance(50 * MS), 0);
	printf("#   per-CPU sum: %lu, locked total: %lu, schedule calls: %llu\n",
	       param("picks"), param("locked_picks"), uc_calls(SAAKM_EV_SCHEDULE));
	EXPECT_EQ(param("picks"), uc_calls(SAAKM_EV_SCHEDULE));
	EXPECT_EQ(param("locked_picks"), uc_calls(SAAKM_EV_SCHEDULE));
	EXPECT_GE(param("picks"), 8);
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

/*
 * kick_us=100: the pinned timer of the CPU that started a task kicks it
 * 100 µs later; preempt() then hands the CPU to the waiting task, long
 * before the 4 ms tick. On CPU 1, the timer fires on CPU 1.
 */
static void t_kick_preempt(void)
{
	const struct uc_kick_stats *k;

	START(.nr_cpus = 2, .params = "kick_us=100");
	EXPECT_EQ(uc_fork(1, 1, 0x2, 0), 0);
	EXPECT_EQ(uc_fork(2, 1, 0x2, 0), 0);
	EXPECT_EQ(uc_curr(1), 1);
	EXPECT_EQ(uc_advance(99 * US), 0);
	EXPECT_EQ(uc_curr(1), 1);
	EXPECT_EQ(uc_advance(1 * US), 0);	/* 100 µs: the kick */
	EXPECT_EQ(uc_curr(1), 2);
	EXPECT_EQ(uc_runtime(1), 100 * US);
	EXPECT_EQ(uc_advance(100 * US), 0);
	EXPECT_EQ(uc_curr(1), 1);
	k = uc_kick_stats();
	printf("#   kicks %llu (preempt %llu), preempt() calls %llu, preempted %llu, timers %llu\n",
	       k->kicks, k->preempt_kicks, k->preempt_calls, k->preempted, k->timers);
	EXPECT_EQ(param("kick_fires"), 2);
	EXPECT_EQ(param("kick_wrong_cpu"), 0);
	EXPECT_EQ(k->preempt_kicks, 2);
	EXPECT_EQ(k->preempt_calls, 2);
	EXPECT_EQ(k->preempted, 2);
	EXPECT_EQ(param("preempts"), 2);
	EXPECT_EQ(uc_calls(SAAKM_EV_PREEMPT), 2);
	EXPECT_EQ(usim_kick_count(uc_policy(), 1), 2);
	EXPECT_EQ(usim_kick_count(uc_policy(), 0), 0);
	/* Alone, it is not preempted: preempt() is called and keeps it. */
	EXPECT_EQ(uc_block(1), 0);		/* cancels 1's timer; 2 starts its own */
	EXPECT_EQ(uc_advance(1 * MS), 0);
	EXPECT_EQ(uc_curr(1), 2);
	EXPECT_EQ(param("preempts"), 3);
	EXPECT_EQ(k->preempted, 2);
	EXPECT_EQ(uc_unload(), 0);		/* core_exit cancelled the timers */
}

/* A module_param_cb() parameter: its .set refuses bad values at load and at write. */
static void t_param_cb(void)
{
	struct uc_opts o = { .nr_cpus = 1, .params = "kick_us=5", .quiet = 1 };
	char buf[64] = "";	/* compared even if a read fails */

	EXPECT_EQ(uc_start(&o), -EINVAL);	/* load refused */
	EXPECT(uc_failure() && strstr(uc_failure(), "kick_us"));
	uc_clear_failure();
	START(.nr_cpus = 1, .params = "kick_us=50");
	EXPECT_EQ(usim_param_read("kick_us", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "50");
	EXPECT_EQ(usim_param_write("kick_us", "5"), -EINVAL);
	EXPECT_EQ(usim_param_write("kick_us", "200000"), -EINVAL);
	EXPECT_EQ(usim_param_write("kick_us", "ten"), -EINVAL);
	EXPECT_EQ(usim_param_write("kick_us", "-1"), -EINVAL);
	EXPECT_EQ(usim_param_read("kick_us", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "50");
	EXPECT_EQ(usim_param_write("kick_us", "0x64\n"), 0);	/* base 0, sysfs newline */
	EXPECT_EQ(usim_param_read("kick_us", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "100");
	EXPECT_EQ(usim_param_write("nosuch", "1"), -ENOENT);
	EXPECT_EQ(param("kick_us"), 100);
}

/* The fair class's weights: 1024 at nice 0, clamped at both ends. */
static void t_nice_weight(void)
{
	int nice;

	EXPECT_EQ(saakm_nice_weight(0), 1024);
	EXPECT_EQ(saakm_nice_weight(-20), 88761);
	EXPECT_EQ(saakm_nice_weight(19), 15);
	EXPECT_EQ(saakm_nice_weight(1), 820);
	EXPECT_EQ(saakm_nice_weight(-100), 88761);
	EXPECT_EQ(saakm_nice_weight(100), 15);
	for (nice = -20; nice < 19; nice++) {	/* each step about 1.25x */
		EXPECT_GT(saakm_nice_weight(nice) * 100, saakm_nice_weight(nice + 1) * 118);
		EXPECT_LT(saakm_nice_weight(nice) * 100, saakm_nice_weight(nice + 1) * 132);
	}
}

/* sched_setattr(): nice outside -20..19 refused by the class; runtime reaches the policy. */
static void t_setattr(void)
{
	int err;

	START(.nr_cpus = 1);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_setattr(1, 20, 0, &err), 0);
	EXPECT_EQ(err, -EINVAL);
	EXPECT_EQ(uc_calls(SAAKM_EV_SETPARAM_ATTR), 0);
	EXPECT_EQ(uc_setattr(1, 5, 300 * US, &err), 0);
	EXPECT_EQ(err, 0);
	EXPECT_EQ(param("last_runtime"), 300 * US);
	EXPECT_EQ(param("last_size"), 0);
	EXPECT_EQ(usim_task_nice(usim_task_find(1)), 5);
	EXPECT_EQ(uc_setattr_blob(1, 5, 0, "blob", 4, &err), 0);
	EXPECT_EQ(err, 0);
	EXPECT_EQ(param("last_size"), 4);
	EXPECT_EQ(param("last_runtime"), 0);
	EXPECT_EQ(uc_set_nice(1, 3), 0);
	EXPECT_EQ(param("last_size"), 0);	/* the blob was for one call */
}

/*
 * An operation that does not apply is refused, changes nothing, and says
 * which operation and which precondition (uc_refusal()), so that a failed
 * check says why it got -1; the next operation forgets it. Once the world
 * has failed, every operation is refused with the failure.
 */
static void t_refusals(void)
{
	char want[640];

	START(.nr_cpus = 1, .params = "leak=Y");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_wake(1), -1);
	EXPECT_STREQ(uc_refusal(), "wake 1: task 1 is running (on cpu 0)");
	EXPECT_EQ(uc_wake(2), -1);
	EXPECT_STREQ(uc_refusal(), "wake 2: task 2 is already runnable (waiting on cpu 0)");
	EXPECT_EQ(uc_block(2), -1);
	EXPECT_STREQ(uc_refusal(), "block 2: task 2 is not running: it waits on cpu 0, which runs 1");
	EXPECT_EQ(uc_curr(0), 1);		/* refused: nothing changed */
	EXPECT_EQ(uc_block(1), 0);
	EXPECT(!uc_refusal());
	EXPECT_EQ(uc_yield(1), -1);
	EXPECT_STREQ(uc_refusal(), "yield 1: task 1 is not running: it sleeps");
	EXPECT_EQ(uc_exit(7), -1);
	EXPECT_STREQ(uc_refusal(), "exit 7: no task 7");
	EXPECT_EQ(uc_fork(2, 0, 0, 0), -1);
	EXPECT_STREQ(uc_refusal(), "fork 2: task 2 exists already");
	EXPECT_EQ(uc_cpu_down(0), -1);
	EXPECT_STREQ(uc_refusal(), "cpu_down 0: cpu 0 is the last online cpu");
	EXPECT_EQ(uc_set_nice(2, 20), -1);
	EXPECT_STREQ(uc_refusal(), "nice 2 := 20: nice out of range -20..19");
	EXPECT_EQ(uc_unload(), -1);		/* leak=Y: the world fails */
	EXPECT(uc_failure() && strstr(uc_failure(), "still holds"));
	EXPECT_EQ(uc_advance(MS), -1);
	snprintf(want, sizeof(want), "advance %llu ns: the simulation has already failed: %s", MS,
		 uc_failure());
	EXPECT_STREQ(uc_refusal(), want);
	uc_clear_failure();
}

/*
 * The locality helpers on 4 CPUs in 2 LLCs of 2: idle CPUs and run queue
 * lengths come from the simulated CPUs, and the LLC follows hotplug.
 */
static void t_llc_helpers(void)
{
	const struct cpumask *llc1;

	START(.nr_cpus = 4);
	usim_set_topology(1, 2, 0);
	llc1 = saakm_topo_mask(2, TOPO_LLC);
	EXPECT_EQ(saakm_idle_cpu(NULL, NULL, llc1, 3), 3);	/* all idle: the first looked at */
	EXPECT_EQ(uc_fork(1, 2, 1ULL << 2, 0), 0);		/* runs on cpu 2 */
	EXPECT_EQ(uc_fork(2, 2, 1ULL << 2, 0), 0);		/* waits on cpu 2 */
	EXPECT_EQ(saakm_llc_nr_running(NULL, 3), 2);
	EXPECT_EQ(saakm_llc_nr_running(NULL, 0), 0);
	EXPECT_EQ(saakm_idle_cpu(NULL, NULL, llc1, 2), 3);	/* 2 is busy: wraps on to 3 */
	EXPECT_EQ(uc_fork(3, 3, 1ULL << 3, 0), 0);
	EXPECT_EQ(saakm_idle_cpu(NULL, NULL, llc1, 2), -1);	/* the LLC is full */
	EXPECT_EQ(uc_exit(3), 0);
	EXPECT_EQ(uc_cpu_down(3), 0);
	llc1 = saakm_topo_mask(2, TOPO_LLC);			/* cpu 2 alone now */
	EXPECT_EQ(saakm_idle_cpu(NULL, NULL, llc1, 3), -1);
	EXPECT_EQ(saakm_llc_nr_running(NULL, 2), 2);
	EXPECT_EQ(uc_cpu_up(3), 0);
	llc1 = saakm_topo_mask(2, TOPO_LLC);
	EXPECT_EQ(saakm_idle_cpu(NULL, NULL, llc1, 0), 3);
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
	RUN(t_kick_preempt, "saakm_kick_cpu(PREEMPT) from a pinned hrtimer preempts after 100 us");
	RUN(t_param_cb, "module_param_cb: .set refuses bad values at load and at write");
	RUN(t_nice_weight, "saakm_nice_weight: the fair class's table, clamped");
	RUN(t_setattr, "sched_setattr: nice range checked by the class, runtime passed on");
	RUN(t_llc_helpers, "saakm_idle_cpu() and saakm_llc_nr_running() on 2 LLCs, across hotplug");
	RUN(t_refusals, "a refused operation names itself and the precondition it failed");
	return tap_done();
}
