// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of policies/shinjuku/saakm_shinjuku.c, compiled unchanged
 * against libusim and driven by the class simulation (usim_class.h): one
 * global FCFS queue served by every CPU (an idle CPU takes the oldest task,
 * even one queued on another CPU), preemption after slice_us by a pinned
 * per-CPU hrtimer and saakm_kick_cpu(), a short task never stuck behind a
 * long one, wakeup preemption once the slice is over, an idle CPU kicked to
 * pull, hotplug and unload losing nothing, and slice_us validated at load
 * and at run time.
 */
#include "policy_test.h"

#define US 1000ULL
#define MS 1000000ULL

/* Advance 1 µs at a time until @pid runs on @cpu (at most @max_ns); the time it took. */
static unsigned long long wait_until_runs(int pid, int cpu, unsigned long long max_ns)
{
	unsigned long long waited = 0;

	while (uc_curr(cpu) != pid && waited < max_ns && !uc_failure()) {
		uc_advance(1 * US);
		waited += US;
	}
	return waited;
}

/*
 * Two CPUs, no preemption in sight (slice 100 ms). With no CPU idle, a new
 * task waits on the CPU with the fewest waiting (its parent's on a tie). A
 * CPU whose task stops runs the oldest task waiting on it; one with none
 * takes the oldest of the global queue, wherever it waits.
 */
static void t_fcfs(void)
{
	START(.nr_cpus = 2, .params = "slice_us=100000");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);	/* cpu 0 idle: runs there */
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);	/* cpu 1 idle: goes there */
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_curr(1), 2);
	EXPECT_EQ(uc_fork(3, 0, 0, 0), 0);	/* none idle: queues 0/0, the parent's */
	EXPECT_EQ(uc_fork(4, 0, 0, 0), 0);	/* 1/0: cpu 1 */
	EXPECT_EQ(uc_fork(5, 0, 0, 0), 0);	/* 1/1: the parent's */
	EXPECT_EQ(uc_fork(6, 1, 0, 0), 0);	/* 2/1: cpu 1 */
	EXPECT_EQ(uc_cpu_of(3), 0);
	EXPECT_EQ(uc_cpu_of(4), 1);
	EXPECT_EQ(uc_cpu_of(5), 0);
	EXPECT_EQ(uc_cpu_of(6), 1);
	EXPECT_EQ(uc_block(1), 0);
	EXPECT_EQ(uc_curr(0), 3);		/* the oldest waiting on cpu 0 */
	EXPECT_EQ(uc_block(3), 0);
	EXPECT_EQ(uc_curr(0), 5);
	EXPECT_EQ(uc_block(5), 0);
	EXPECT_EQ(uc_curr(0), 4);
	EXPECT_EQ(uc_cpu_of(4), 0);		/* none left: the head, from cpu 1 */
	EXPECT_EQ(uc_block(4), 0);
	EXPECT_EQ(uc_curr(0), 6);
	EXPECT_EQ(uc_cpu_of(6), 0);
	EXPECT_EQ(uc_wake(1), 0);		/* both busy, none waiting: its last CPU */
	EXPECT_EQ(uc_cpu_of(1), 0);
	EXPECT_EQ(uc_state(1), SAAKM_READY);
	EXPECT_EQ(uc_block(2), 0);
	EXPECT_EQ(uc_curr(1), 1);		/* cpu 1 idles: takes 1 from cpu 0 */
	EXPECT_EQ(uc_calls(SAAKM_EV_BALANCE_PICK), 3);
}

/* The default slice: a task preempted after 30 µs when another waits, not before. */
static void t_slice(void)
{
	START(.nr_cpus = 1);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_advance(29 * US), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_advance(1 * US), 0);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_runtime(1), 30 * US);
	EXPECT_EQ(uc_state(1), SAAKM_READY);
	EXPECT_EQ(uc_advance(30 * US), 0);
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_runtime(2), 30 * US);
	EXPECT_EQ(uc_kick_stats()->preempted, 2);
	EXPECT_EQ(uc_calls(SAAKM_EV_PREEMPT), 2);
	/* Alone, a task keeps the CPU: preempt() is asked once, and declines. */
	EXPECT_EQ(uc_exit(1), 0);
	EXPECT_EQ(uc_advance(5 * MS), 0);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_kick_stats()->preempted, 2);
	EXPECT_EQ(uc_calls(SAAKM_EV_PREEMPT), 3);
}

/*
 * One CPU, a long task that never blocks, and a short one that wakes every
 * 200 µs for 10 µs of work: it never waits more than one slice, and, once
 * the long task's slice is over, not at all (the wakeup kicks a preempt).
 */
static void t_short_not_stuck(void)
{
	unsigned long long waited, worst = 0, total = 0;
	int i, immediate = 0;

	START(.nr_cpus = 1, .params = "slice_us=30");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);	/* long */
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);	/* short */
	EXPECT_LE(wait_until_runs(2, 0, 1 * MS), 30 * US);
	for (i = 0; i < 100 && !uc_failure(); i++) {
		EXPECT_EQ(uc_advance(10 * US), 0);
		EXPECT_EQ(uc_block(2), 0);
		EXPECT_EQ(uc_curr(0), 1);
		EXPECT_EQ(uc_advance((i % 7 == 0 ? 20 : 190) * US), 0);
		EXPECT_EQ(uc_wake(2), 0);
		waited = wait_until_runs(2, 0, 10 * MS);
		immediate += waited == 0;
		worst = waited > worst ? waited : worst;
		total += waited;
	}
	printf("#   short task: %d wakeups, %d ran at once, worst wait %llu us, long task ran %llu us\n",
	       i, immediate, worst / US, uc_runtime(1) / US);
	EXPECT_LE(worst, 30 * US);
	EXPECT_GE(immediate, 80);		/* after 190 µs of the long task: at once */
	EXPECT_GE(uc_runtime(1), 15 * MS);	/* the long task still gets the rest */
}

/*
 * A task the class moves to a busy CPU while another CPU idles: the idle
 * CPU is kicked and takes it, without waiting for a slice to end.
 */
static void t_idle_kick(void)
{
	START(.nr_cpus = 3, .params = "slice_us=100000");
	EXPECT_EQ(uc_fork(1, 0, 0x1, 0), 0);	/* runs on cpu 0 */
	EXPECT_EQ(uc_fork(2, 1, 0x2, 0), 0);	/* runs on cpu 1 */
	EXPECT_EQ(uc_fork(3, 0, 0x1, 0), 0);	/* waits on cpu 0 */
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_curr(1), 2);
	EXPECT_EQ(uc_curr(2), -1);
	EXPECT_EQ(uc_cpu_of(3), 0);
	EXPECT_EQ(uc_state(3), SAAKM_READY);
	/* Not allowed on cpu 0 any more: the class moves it to cpu 1 (busy). */
	EXPECT_EQ(uc_set_affinity(3, 0x6), 0);
	EXPECT_EQ(uc_curr(2), 3);
	EXPECT_GE(uc_kick_stats()->idle_kicks, 1);
	printf("#   kicks: %llu (idle %llu)\n", uc_kick_stats()->kicks, uc_kick_stats()->idle_kicks);
}

/*
 * In the kernel, tick() and preempt() can both reach a task before its CPU
 * switches (a tick and the slice timer's kick in one interrupt): the second
 * finds it READY_TICK and must leave it so (READY_TICK -> READY_TICK is an
 * invalid transition: the policy would be ejected). The simulation switches
 * at once, so the test makes the second call itself.
 */
static void t_preempt_twice(void)
{
	struct task_struct *p;

	START(.nr_cpus = 1, .params = "slice_us=1000000");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(100 * US), 0);
	EXPECT_EQ(usim_param_write("slice_us", "30"), 0);	/* 1 is past a 30 us slice now */
	p = usim_task_find(1);
	usim_call(uc_policy(), SAAKM_EV_PREEMPT, 0, p, -1);
	EXPECT_EQ(uc_state(1), SAAKM_READY_TICK);
	usim_call(uc_policy(), SAAKM_EV_TICK, 0, p, -1);
	usim_call(uc_policy(), SAAKM_EV_PREEMPT, 0, p, -1);
	EXPECT_EQ(uc_state(1), SAAKM_READY_TICK);
	EXPECT(!uc_failure());
	EXPECT_EQ(uc_advance(3900 * US), 0);		/* the tick at 4 ms switches */
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_state(1), SAAKM_READY);
}

/*
 * A CPU busy with another class when shinjuku loads never says exit_idle
 * when our first task runs there: schedule() must mark it busy, or a wakeup
 * there would not kick a preemption and would wait for the 4 ms tick.
 */
static void t_busy_at_load(void)
{
	START(.nr_cpus = 1, .busy_cpus = 0x1);
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_calls(SAAKM_EV_EXIT_IDLE), 0);
	EXPECT_EQ(uc_advance(40 * US), 0);	/* 2 ran at 30 us */
	EXPECT_EQ(uc_block(2), 0);		/* 1 again, for a fresh slice */
	EXPECT_EQ(uc_advance(100 * US), 0);	/* past it, nobody waiting */
	EXPECT_EQ(uc_curr(0), 1);
	EXPECT_EQ(uc_wake(2), 0);
	EXPECT_EQ(uc_curr(0), 2);		/* at once, not at the tick */
}

/* A yielding task goes behind every task waiting on its CPU. */
static void t_yield(void)
{
	START(.nr_cpus = 1, .params = "slice_us=100000");
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(3, 0, 0, 0), 0);
	EXPECT_EQ(uc_yield(1), 0);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_yield(2), 0);
	EXPECT_EQ(uc_curr(0), 3);
	EXPECT_EQ(uc_yield(3), 0);
	EXPECT_EQ(uc_curr(0), 1);
}

/*
 * Hotplug of a CPU with tasks waiting on it: the class moves them, none is
 * lost (the simulation checks every runnable task is somewhere), all run,
 * and the CPU's slice timer does not outlive it.
 */
static void t_hotplug(void)
{
	int pid;

	START(.nr_cpus = 3);
	for (pid = 1; pid <= 12; pid++)
		EXPECT_EQ(uc_fork(pid, pid % 3, 0, 0), 0);
	EXPECT_GE(uc_nr_ready(1), 2);
	EXPECT_EQ(uc_advance(100 * US), 0);
	EXPECT_EQ(uc_cpu_down(1), 0);
	EXPECT_LE(usim_nr_timers(), 2);
	EXPECT_EQ(uc_nr_ready(1), 0);
	EXPECT_EQ(uc_advance(5 * MS), 0);
	for (pid = 1; pid <= 12; pid++) {
		EXPECT(uc_runnable(pid));
		EXPECT_NE(uc_cpu_of(pid), 1);
		EXPECT_GE(uc_runtime(pid), 30 * US);
	}
	EXPECT_EQ(uc_cpu_up(1), 0);
	EXPECT_EQ(uc_block(uc_curr(0)), 0);
	EXPECT_EQ(uc_advance(5 * MS), 0);
}

/*
 * The guest test's load on the host: many tasks that each run 100 us and
 * sleep 1-5 ms, on 2 CPUs; CPU 1 goes offline, then comes back. Every task
 * must make progress in each phase.
 */
#define HP_TASKS	100
static unsigned long long hp_wake_at[HP_TASKS + 1], hp_ran_at[HP_TASKS + 1];
static int hp_loops[HP_TASKS + 1];

static void hp_run(unsigned long long ns)
{
	int pid;

	for (unsigned long long t = 0; t < ns && !uc_failure(); t += 20 * US) {
		uc_advance(20 * US);
		for (pid = 1; pid <= HP_TASKS; pid++) {
			if (uc_runnable(pid)) {
				if (uc_runtime(pid) - hp_ran_at[pid] >= 100 * US &&
				    uc_curr(uc_cpu_of(pid)) == pid) {
					uc_block(pid);
					hp_loops[pid]++;
					hp_wake_at[pid] = usim_now_ns() + MS + (pid * 7919) % (4 * MS);
				}
			} else if (usim_now_ns() >= hp_wake_at[pid]) {
				hp_ran_at[pid] = uc_runtime(pid);
				uc_wake(pid);
			}
		}
	}
}

static int hp_stuck(const int *before)
{
	int pid, n = 0;

	for (pid = 1; pid <= HP_TASKS; pid++)
		n += hp_loops[pid] == before[pid];
	return n;
}

static void t_hotplug_progress(void)
{
	static int at_down[HP_TASKS + 1], at_up[HP_TASKS + 1];
	int pid, down, up;

	START(.nr_cpus = 2);
	for (pid = 1; pid <= HP_TASKS; pid++)
		EXPECT_EQ(uc_fork(pid, pid % 2, 0, 0), 0);
	hp_run(100 * MS);
	memcpy(at_down, hp_loops, sizeof(at_down));
	EXPECT_EQ(uc_cpu_down(1), 0);
	hp_run(300 * MS);
	memcpy(at_up, hp_loops, sizeof(at_up));
	EXPECT_EQ(uc_cpu_up(1), 0);
	hp_run(300 * MS);
	down = hp_stuck(at_down);
	up = hp_stuck(at_up);
	printf("#   no progress: %d of %d while cpu 1 was down, %d after it came back\n",
	       down, HP_TASKS, up);
	EXPECT(!down && !up);
}

/* rmmod with tasks running and waiting: nothing left, no timer armed. */
static void t_unload(void)
{
	int pid;

	START(.nr_cpus = 2);
	for (pid = 1; pid <= 6; pid++)
		EXPECT_EQ(uc_fork(pid, 0, 0, 0), 0);
	EXPECT_EQ(uc_advance(1 * MS), 0);
	EXPECT_GE(usim_nr_timers(), 1);
	EXPECT_EQ(uc_unload(), 0);
	EXPECT_EQ(usim_nr_timers(), 0);
	EXPECT_EQ(usim_alloc_outstanding(), 0);
}

/* uc_start() with @params, printk to a file; 0 or the error, the log in @log. */
static int start_logged(const char *params, char *log, size_t size)
{
	struct uc_opts o = { .nr_cpus = 1, .params = params };
	FILE *f = tmpfile();
	int saved = dup(2), ret;
	size_t n;

	fflush(stderr);
	dup2(fileno(f), 2);
	ret = uc_start(&o);
	usim_set_quiet(1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(log, 1, size - 1, f);
	log[n] = '\0';
	fclose(f);
	uc_clear_failure();
	return ret;
}

/* slice_us: 0 and values below the timer's resolution are refused, with a message. */
static void t_bad_slice(void)
{
	static const char *const bad[] = { "slice_us=0", "slice_us=1", "slice_us=4",
					   "slice_us=2000000", "slice_us=abc" };
	char log[1024], buf[32] = "";	/* compared even if a read fails */
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(start_logged(bad[i], log, sizeof(log)), -EINVAL);
		EXPECT(strstr(log, "saakm_shinjuku: slice_us=") && strstr(log, "refused: allowed 5..1000000"));
	}
	printf("#   message: %s", log);
	EXPECT_EQ(start_logged("slice_us=5", log, sizeof(log)), 0);
	EXPECT(!strstr(log, "slice_us"));
	/* At run time (a sysfs write): refused the same way, the value kept. */
	START(.nr_cpus = 1, .params = "slice_us=40");
	EXPECT_EQ(usim_param_write("slice_us", "0\n"), -EINVAL);
	EXPECT_EQ(usim_param_write("slice_us", "1\n"), -EINVAL);
	EXPECT_EQ(usim_param_write("slice_us", "-30"), -EINVAL);
	EXPECT_EQ(usim_param_read("slice_us", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "40");
	/* A good value applies from the next dispatch. */
	EXPECT_EQ(uc_fork(1, 0, 0, 0), 0);
	EXPECT_EQ(uc_fork(2, 0, 0, 0), 0);
	EXPECT_EQ(usim_param_write("slice_us", "100\n"), 0);
	EXPECT_EQ(uc_advance(40 * US), 0);
	EXPECT_EQ(uc_curr(0), 2);		/* 1 started with 40 */
	EXPECT_EQ(uc_advance(99 * US), 0);
	EXPECT_EQ(uc_curr(0), 2);
	EXPECT_EQ(uc_advance(1 * US), 0);
	EXPECT_EQ(uc_curr(0), 1);		/* 2 started with 100 */
}

int main(void)
{
	printf("# policies/shinjuku on libusim\n");
	RUN(t_fcfs, "global FCFS: an idle CPU takes the oldest task, from any CPU");
	RUN(t_slice, "slice: preempted after 30 us when another waits, never alone");
	RUN(t_short_not_stuck, "a short task is never stuck behind a long one");
	RUN(t_idle_kick, "a task queued on a busy CPU: the idle CPU is kicked and pulls it");
	RUN(t_preempt_twice, "tick/preempt of a task already READY_TICK leaves it so");
	RUN(t_busy_at_load, "a CPU busy with another class at load: wakeups still preempt at once");
	RUN(t_yield, "yield goes to the tail");
	RUN(t_hotplug, "hotplug of a CPU with waiting tasks loses none");
	RUN(t_hotplug_progress, "100 tasks, cpu 1 down then up: every task progresses in each phase");
	RUN(t_unload, "unload: no task, memory or timer left");
	RUN(t_bad_slice, "slice_us 0, 1, 4, too big, not a number: refused at load and at write");
	return tap_done();
}
