// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of policies/wfq/saakm_wfq.c, compiled unchanged against
 * libusim and driven by the class simulation (usim_class.h): CPU shares in
 * the ratio of the nice weights, slices, the bound on a sleeper's credit,
 * wakeup preemption through saakm_kick_cpu(), balancing by weighted load
 * (several tasks per balance, idle CPUs kicked by busy ones), nice changes,
 * the attribute checks and the validation of module parameters.
 */
#include <stdbool.h>

#include "policy_test.h"
#include "mixed_load.h"
#include "three_on_two.h"

#define MS 1000000ULL

/* The fair class's weights of nice 0 and 5: the ratio the shares must have. */
#define W_NICE0	1024.0
#define W_NICE5	335.0

/* |a/b - want| <= tol * want */
static int ratio_within(unsigned long long a, unsigned long long b, double want, double tol)
{
	double r = b ? (double)a / (double)b : 0;

	printf("#   ratio %.4f, want %.4f +- %.0f%%\n", r, want, tol * 100);
	return r >= want * (1 - tol) && r <= want * (1 + tol);
}

/* Two hogs at nice 0 and 5 on one CPU: CPU time 1024:335 within 5%. */
static void t_nice_ratio(void)
{
	START(.nr_cpus = 1);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 5), 0);
	EXPECT_EQ(uc_advance(10000 * MS), 0);
	EXPECT_EQ(uc_runtime(1) + uc_runtime(2), 10000 * MS);
	EXPECT(ratio_within(uc_runtime(1), uc_runtime(2), W_NICE0 / W_NICE5, 0.05));
}

/* The same for another pair: nice -2 and 4 share 1586:423 (sched_prio_to_weight). */
static void t_nice_ratio_other(void)
{
	START(.nr_cpus = 1, .params = "slice_ms=1");
	EXPECT_EQ(uc_fork(1, 0, 0, -2), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 4), 0);
	EXPECT_EQ(uc_advance(5000 * MS), 0);
	EXPECT(ratio_within(uc_runtime(1), uc_runtime(2), 1586.0 / 423.0, 0.05));
}

/* slice_ms=8: equal tasks alternate at the first tick at or past 8 ms. */
static void t_slice(void)
{
	START(.nr_cpus = 1, .params = "slice_ms=8");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_advance(4 * MS), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_advance(4 * MS), 0);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_runtime(1), 8 * MS);
	EXPECT_EQ(uc_advance(8 * MS), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_runtime(2), 8 * MS);
}

/* Alone on its CPU, a task is never preempted. */
static void t_alone(void)
{
	START(.nr_cpus = 1);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(100 * MS), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_runtime(1), 100 * MS);
	EXPECT_EQ(uc_calls(SAAKM_EV_SCHEDULE), 1);
}

/*
 * A task that slept 1 s while another ran wakes with one slice of credit,
 * not a second: over the next 200 ms the two share the CPU about evenly
 * (without the bound it would run the whole 200 ms).
 */
static void t_sleeper_bound(void)
{
	unsigned long long before;

	START(.nr_cpus = 1, .params = "slice_ms=3");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(4 * MS), 0);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_block(2), 0);
	EXPECT_EQ(uc_advance(1000 * MS), 0);
	before = uc_runtime(2);
	EXPECT_EQ(uc_wake(2), 0);
	EXPECT_EQ(uc_advance(200 * MS), 0);
	printf("#   woken task ran %llu ms of 200\n", (uc_runtime(2) - before) / MS);
	EXPECT_GE(uc_runtime(2) - before, 90 * MS);
	EXPECT_LE(uc_runtime(2) - before, 110 * MS);
}

/* A task forked after another ran 1 s alone starts level with it. */
static void t_new_task(void)
{
	START(.nr_cpus = 1);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(1000 * MS), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(200 * MS), 0);
	printf("#   new task ran %llu ms of 200\n", uc_runtime(2) / MS);
	EXPECT_GE(uc_runtime(2), 90 * MS);
	EXPECT_LE(uc_runtime(2), 110 * MS);
}

/*
 * Two hogs on one CPU: task 2 sleeps for 100 ms, so that it is placed a
 * slice (3 ms) behind task 1, and wakes half-way between ticks; task 3, if
 * @crowd, waits next to it.
 */
static void sleeper_wakes(bool crowd)
{
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(4 * MS), 0);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_block(2), 0);
	if (crowd)
		EXPECT_EQ(uc_fork(3, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(100 * MS + MS / 2), 0);
	EXPECT_EQ(uc_wake(2), 0);
}

/*
 * Wakeup preemption: the sleeper is more than wakeup_gran_us (1 ms)
 * behind the running hog, with task 3 waiting too: its wakeup kicks the
 * CPU and preempt() hands it the CPU at once, before any tick.
 */
static void t_wakeup_preempt(void)
{
	START(.nr_cpus = 1, .params = "slice_ms=3 wakeup_gran_us=1000");
	sleeper_wakes(true);
	EXPECT_EQ(uc_kick_stats()->preempt_kicks, 1);
	EXPECT_EQ(uc_kick_stats()->preempted, 1);
	EXPECT_EQ(uc_calls(SAAKM_EV_PREEMPT), 1);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_state(1), SAAKM_READY);
	EXPECT_EQ(uc_state(3), SAAKM_READY);
}

/*
 * A granularity larger than the credit, and a crowd: no kick; the running
 * hog keeps the CPU until the tick finds its slice used, and the sleeper
 * (lowest vruntime) runs.
 */
static void t_wakeup_no_preempt(void)
{
	START(.nr_cpus = 1, .params = "slice_ms=3 wakeup_gran_us=5000");
	sleeper_wakes(true);
	EXPECT_EQ(uc_kick_stats()->preempt_kicks, 0);
	EXPECT_NE(uc_curr(0), 2);
	EXPECT_EQ(uc_advance(4 * MS), 0);	/* the tick: slice used, 2 is behind */
	EXPECT_EQ(uc_curr(0), 2);
}

/*
 * The same granularity, but the woken task is the only one waiting: any
 * lead takes the CPU at once (wakeup_gran_us is against crowds).
 */
static void t_wakeup_alone(void)
{
	START(.nr_cpus = 1, .params = "slice_ms=3 wakeup_gran_us=5000");
	sleeper_wakes(false);
	EXPECT_EQ(uc_kick_stats()->preempt_kicks, 1);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_state(1), SAAKM_READY);
}

/* Tasks on @cpu, runnable. */
static int nr_on(int cpu, int first, int last)
{
	int pid, n = 0;

	for (pid = first; pid <= last; pid++)
		n += uc_runnable(pid) && uc_cpu_of(pid) == cpu;
	return n;
}

/*
 * 8 hogs on CPU 0 (pinned, then allowed both CPUs); CPU 1's only task goes
 * to sleep: in that one balance (newly_idle) CPU 1 pulls 4 of them, each
 * move evening the loads until they are even (balance_max=8), or 2 with
 * balance_max=2. No time passes: no tick, no periodic balance.
 */
static void balance_several(const char *params, int want, int picks)
{
	int pid;

	START(.nr_cpus = 2, .params = params);
	EXPECT_EQ(uc_fork(9, 1, 0x2, 0), 0);
	for (pid = 1; pid <= 8; pid++)
		EXPECT_EQ(uc_fork(pid, 0, 0x1, 0), 0);
	for (pid = 1; pid <= 8; pid++)
		EXPECT_EQ(uc_set_affinity(pid, 0x3), 0);
	EXPECT_EQ(nr_on(0, 1, 8), 8);
	EXPECT_EQ(uc_curr(1), 9);
	EXPECT_EQ(uc_block(9), 0);
	printf("#   %d on cpu 0, %d on cpu 1\n", nr_on(0, 1, 8), nr_on(1, 1, 8));
	EXPECT_EQ(nr_on(1, 1, 8), want);
	EXPECT_EQ(nr_on(0, 1, 8), 8 - want);
	EXPECT_EQ(uc_calls(SAAKM_EV_NEWLY_IDLE), 1);
	EXPECT_EQ(uc_calls(SAAKM_EV_BALANCE_PICK), (unsigned long long)picks);
}

static void t_balance_several(void)
{
	balance_several("balance_max=8 balance_ms=1000", 4, 5);	/* the 5th: NULL */
}

static void t_balance_max(void)
{
	balance_several("balance_max=2 balance_ms=1000", 2, 2);
}

/*
 * NOHZ kick: CPU 1 idles (its tick stopped, no periodic balance due); at
 * CPU 0's next tick, CPU 0 has tasks waiting and kicks it, and it pulls.
 */
static void t_nohz_kick(void)
{
	int pid;

	START(.nr_cpus = 2, .params = "balance_ms=1000");
	for (pid = 1; pid <= 4; pid++)
		EXPECT_EQ(uc_fork(pid, 0, 0x1, 0), 0);
	EXPECT_EQ(uc_advance(4 * MS), 0);	/* the first periodic balance: all pinned */
	for (pid = 1; pid <= 4; pid++)
		EXPECT_EQ(uc_set_affinity(pid, 0x3), 0);
	EXPECT_EQ(uc_curr(1), -1);
	EXPECT_EQ(uc_kick_stats()->idle_kicks, 1);	/* declined: all pinned */
	EXPECT_EQ(uc_advance(4 * MS), 0);
	EXPECT_EQ(uc_kick_stats()->idle_kicks, 2);
	EXPECT_EQ(nr_on(1, 1, 4), 2);
	EXPECT_GT(uc_curr(1), 0);
}

/*
 * Balancing evens weights, not counts: one nice -5 task (3121) and three
 * nice 0 tasks (1024 each) end up 1 against 3.
 */
static void t_balance_weighted(void)
{
	int pid, heavy_cpu;

	START(.nr_cpus = 2, .params = "balance_ms=8");
	EXPECT_EQ(uc_fork(1, 0, 0x1, -5), 0);
	for (pid = 2; pid <= 4; pid++)
		EXPECT_EQ(uc_fork(pid, 0, 0x1, 0), 0);
	for (pid = 1; pid <= 4; pid++)
		EXPECT_EQ(uc_set_affinity(pid, 0x3), 0);
	EXPECT_EQ(uc_advance(100 * MS), 0);
	heavy_cpu = uc_cpu_of(1);
	printf("#   nice -5 task on cpu %d with %d others\n", heavy_cpu, nr_on(heavy_cpu, 2, 4));
	EXPECT_EQ(nr_on(heavy_cpu, 2, 4), 0);
	EXPECT_EQ(nr_on(!heavy_cpu, 2, 4), 3);
}

/* Three equal hogs on two CPUs take turns: each gets 2/3 of a CPU. */
static void t_three_on_two(void)
{
	int pid;

	START(.nr_cpus = 2);
	for (pid = 1; pid <= 3; pid++)
		EXPECT_EQ(uc_fork(pid, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(20000 * MS), 0);
	for (pid = 1; pid <= 3; pid++) {
		printf("#   task %d: %.1f%% of a CPU\n", pid, uc_runtime(pid) * 100.0 / (20000 * MS));
		EXPECT(uc_runtime(pid) >= 20000 * MS * 2 / 3 * 0.9 &&
		       uc_runtime(pid) <= 20000 * MS * 2 / 3 * 1.1);
	}
}

/*
 * 64 equal hogs on 16 CPUs, all started on CPU 0: balancing spreads them to
 * 4 per CPU (+- 1), no CPU stalls, and over 10 s each gets a quarter of a
 * CPU within 10 points.
 */
static void t_sixteen(void)
{
	int pid, cpu, per[16] = { 0 }, lo = 64, hi = 0;
	unsigned long long t0[65], share;

	START(.nr_cpus = 16);
	for (pid = 1; pid <= 64; pid++)
		EXPECT_EQ(uc_fork(pid, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(5000 * MS), 0);
	for (pid = 1; pid <= 64; pid++) {
		per[uc_cpu_of(pid)]++;
		t0[pid] = uc_runtime(pid);
	}
	for (cpu = 0; cpu < 16; cpu++) {
		lo = per[cpu] < lo ? per[cpu] : lo;
		hi = per[cpu] > hi ? per[cpu] : hi;
	}
	printf("#   %d to %d hogs per CPU\n", lo, hi);
	EXPECT(lo >= 3 && hi <= 5);
	EXPECT_EQ(uc_advance(10000 * MS), 0);
	lo = 100;
	hi = 0;
	for (pid = 1; pid <= 64; pid++) {
		share = (uc_runtime(pid) - t0[pid]) * 100 / (10000 * MS);
		lo = (int)share < lo ? (int)share : lo;
		hi = (int)share > hi ? (int)share : hi;
	}
	printf("#   %d%% to %d%% of a CPU each\n", lo, hi);
	EXPECT(lo >= 15 && hi <= 35);
}

/*
 * CPU 0 runs another class's task when wfq loads, so it never enters (or
 * leaves) idle: core_entry() marked it idle, and only running our tasks
 * says otherwise. Were it still "idle", every task placed while the others
 * are busy would be sent there (49 of 64), and every busy CPU's tick would
 * kick it, 15 CPUs x 250 Hz, instead of a CPU that really idles.
 */
static void t_busy_at_load(void)
{
	int pid, cpu, hi = 0;
	unsigned long long kicks;

	START(.nr_cpus = 16, .busy_cpus = 0x1);
	for (pid = 1; pid <= 64; pid++)
		EXPECT_EQ(uc_fork(pid, (pid - 1) % 16, 0, 0), 0);
	for (cpu = 0; cpu < 16; cpu++)
		hi = nr_on(cpu, 1, 64) > hi ? nr_on(cpu, 1, 64) : hi;
	kicks = uc_kick_stats()->kicks;
	EXPECT_EQ(uc_advance(1000 * MS), 0);
	kicks = uc_kick_stats()->kicks - kicks;
	printf("#   at most %d per CPU after the forks; %llu kicks in 1 s\n", hi, kicks);
	EXPECT_EQ(hi, 4);
	EXPECT_LT(kicks, 100);
}

/* A CPU going idle pulls a waiting task from the busiest CPU. */
static void t_newly_idle(void)
{
	START(.nr_cpus = 2, .params = "balance_ms=1000");
	EXPECT_EQ(uc_fork(1, 0, 0x1, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0x1, 0), 0);
	EXPECT_EQ(uc_fork(3, 1, 0x2, 0), 0);
	EXPECT_EQ(uc_set_affinity(2, 0x3), 0);
	EXPECT_EQ(uc_block(3), 0);		/* cpu 1 goes idle: pulls 2 */
	EXPECT_EQ(uc_cpu_of(2), 1);
	EXPECT_EQ(uc_curr(1), 2);
	EXPECT_GE(uc_calls(SAAKM_EV_NEWLY_IDLE), 1);
}

/* A pinned task is never pulled. */
static void t_pinned_stays(void)
{
	int pid;

	START(.nr_cpus = 2, .params = "balance_ms=4");
	for (pid = 1; pid <= 4; pid++)
		EXPECT_EQ(uc_fork(pid, 0, 0x1, 0), 0);
	EXPECT_EQ(uc_advance(200 * MS), 0);
	EXPECT_EQ(nr_on(0, 1, 4), 4);
	EXPECT_EQ(uc_curr(1), -1);
	EXPECT_GT(uc_kick_stats()->idle_kicks, 0);	/* cpu 1 was asked, and declined */
}

/*
 * The starvation guard: next to a nice -20 hog, a nice 19 hog would wait
 * about 17 s for each tick it gets; with max_wait_ms=100 it runs every
 * 100 ms or so, and the watchdog (1 s here) sees no stall.
 */
static void t_max_wait(void)
{
	START(.nr_cpus = 1, .params = "max_wait_ms=100");
	EXPECT_EQ(uc_fork(1, 0, 0, -20), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 19), 0);
	EXPECT_EQ(uc_advance(2000 * MS), 0);
	printf("#   nice 19 ran %llu ms of 2000\n", uc_runtime(2) / MS);
	EXPECT_GE(uc_runtime(2), 60 * MS);
	EXPECT_LE(uc_runtime(2), 100 * MS);
}

/* The mixed load (tests/policy/mixed_load.h), as eevdf runs it. */
static void t_mixed_load(void)
{
	struct mixed_load ml = {
		.n = 200, .nice_lo = -10, .nice_hi = 10,
		.end_ns = 5000 * MS, .seed = 20261122,
	};

	START(.nr_cpus = 2, .stall_ns = 5000 * MS);
	mixed_load_run(&ml);
	printf("#   %d of %d below half their fair share; the worst got %.0f%% of it\n",
	       ml.starved, ml.n, ml.worst * 100);
	EXPECT_EQ(ml.starved, 0);
}

/* setpriority() while running: the new weight applies from then on. */
static void t_renice(void)
{
	unsigned long long a, b;

	START(.nr_cpus = 1);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(2000 * MS), 0);
	EXPECT(ratio_within(uc_runtime(1), uc_runtime(2), 1.0, 0.05));
	EXPECT_EQ(uc_set_nice(2, 5), 0);
	a = uc_runtime(1);
	b = uc_runtime(2);
	EXPECT_EQ(uc_advance(5000 * MS), 0);
	EXPECT(ratio_within(uc_runtime(1) - a, uc_runtime(2) - b, W_NICE0 / W_NICE5, 0.05));
}

/* checkparam_attr: a nice value outside -20..19 is refused (by the class). */
static void t_attr_nice(void)
{
	int err = 0;

	START(.nr_cpus = 1);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_setattr(1, 20, 0, &err), 0);
	EXPECT_EQ(err, -EINVAL);
	EXPECT_EQ(uc_setattr(1, 3, 0, &err), 0);
	EXPECT_EQ(err, 0);
}

/* checkparam_attr: wfq takes no attribute blob; nice is left as it was. */
static void t_attr_blob(void)
{
	char blob[8] = { 1 };
	int err = 0;

	START(.nr_cpus = 1);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_setattr_blob(1, 5, 0, blob, sizeof(blob), &err), 0);
	EXPECT_EQ(err, -EINVAL);
	EXPECT_EQ(uc_calls(SAAKM_EV_SETPARAM_ATTR), 0);
	EXPECT_EQ(uc_setattr_blob(1, 5, 0, NULL, 0, &err), 0);
	EXPECT_EQ(err, 0);
	EXPECT_EQ(uc_calls(SAAKM_EV_SETPARAM_ATTR), 1);
}

/* Module parameters: defaults, ranges checked at load and at run time. */
static void t_params(void)
{
	char buf[64] = "";	/* compared even if a read fails */

	START(.nr_cpus = 1);
	EXPECT_EQ(usim_param_read("slice_ms", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "3");
	EXPECT_EQ(usim_param_write("slice_ms", "0"), -EINVAL);
	EXPECT_EQ(usim_param_write("slice_ms", "101"), -EINVAL);
	EXPECT_EQ(usim_param_write("slice_ms", "abc"), -EINVAL);
	EXPECT_EQ(usim_param_write("wakeup_gran_us", "100001"), -EINVAL);
	EXPECT_EQ(usim_param_read("slice_ms", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "3");
	EXPECT_EQ(usim_param_write("slice_ms", "10"), 0);
	EXPECT_EQ(usim_param_read("slice_ms", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "10");
	uc_clear_failure();
}

/* A bad value at load time: the module does not load. */
static void t_params_load(void)
{
	struct uc_opts o = { .nr_cpus = 1, .quiet = 1, .params = "balance_max=0" };

	EXPECT_NE(uc_start(&o), 0);
	uc_clear_failure();
}

/* Exit and unload: nothing left attached or allocated. */
static void t_unload(void)
{
	int pid;

	START(.nr_cpus = 2);
	for (pid = 1; pid <= 6; pid++)
		EXPECT_EQ(uc_fork(pid, 0, 0, pid % 3 - 1), 0);
	EXPECT_EQ(uc_advance(50 * MS), 0);
	EXPECT_EQ(uc_block(uc_curr(0)), 0);
	EXPECT_EQ(uc_exit(uc_curr(1)), 0);
	EXPECT_EQ(uc_advance(30 * MS), 0);
	EXPECT_EQ(uc_unload(), 0);
	EXPECT_EQ(usim_alloc_outstanding(), 0);
}

int main(void)
{
	printf("# saakm_wfq (policies/wfq/saakm_wfq.c) on libusim\n");
	RUN(t_nice_ratio, "nice 0 and 5 on one CPU for 10 s: 1024:335 within 5%");
	RUN(t_nice_ratio_other, "nice -2 and 4, slice_ms=1: 1586:423 within 5%");
	RUN(t_slice, "slice_ms=8: equal tasks alternate at the 8 ms tick");
	RUN(t_alone, "alone: never preempted");
	RUN(t_sleeper_bound, "a 1 s sleeper gets one slice of credit, not the CPU");
	RUN(t_new_task, "a new task starts at min_vruntime: half the CPU, not all");
	RUN(t_wakeup_preempt, "wakeup preemption: kick, preempt(), woken task runs at once");
	RUN(t_wakeup_no_preempt, "wakeup_gran_us above the credit, another task waits: no kick");
	RUN(t_wakeup_alone, "the woken task waits alone: any lead preempts at once");
	RUN(t_balance_several, "a CPU going idle pulls 4 of 8 in one balance");
	RUN(t_balance_max, "balance_max=2: one balance moves 2");
	RUN(t_nohz_kick, "a busy CPU's tick kicks an idle CPU, which pulls");
	RUN(t_balance_weighted, "balance by weight: nice -5 alone against 3 nice 0");
	RUN(t_sixteen, "64 hogs on 16 CPUs: 4 +- 1 per CPU, 25% +- 10 points each, no stall");
	RUN(t_busy_at_load, "a CPU busy at load is not idle once it runs our tasks: no funnel, no kicks");
	RUN(t_three_on_two, "3 equal hogs on 2 CPUs for 20 s: 66.7% +- 10% each");
	RUN(t_three_on_two_staggered, "the same with one hog a few ms ahead: 66.7% +- 3 each");
	RUN(t_newly_idle, "newly idle CPU pulls from the busiest");
	RUN(t_pinned_stays, "pinned tasks are never pulled");
	RUN(t_max_wait, "max_wait_ms=100: a nice 19 task next to nice -20 runs every ~100 ms");
	RUN(t_mixed_load, "200 mixed tasks, random nice, 2 CPUs: each >= 50% of its fair share");
	RUN(t_renice, "renice while running: new weight from then on");
	RUN(t_attr_nice, "nice outside -20..19 refused, a valid one accepted");
	RUN(t_attr_blob, "an attribute blob refused (-EINVAL), none accepted");
	RUN(t_params, "parameters: out-of-range writes refused, value kept");
	RUN(t_params_load, "balance_max=0 at load: refused");
	RUN(t_unload, "exit and unload: nothing left");
	return tap_done();
}
