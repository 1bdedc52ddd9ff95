/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim_class.h - a small SaaKM class core in user space, on top of libusim,
 * for policy unit tests and seeded stress (tests/policy).
 *
 * It owns simulated CPUs (online or not, the task running on each) and
 * tasks (runnable or sleeping, their CPU, affinity, nice, CPU time), and
 * turns the operations below into policy callbacks the way the kernel's
 * class core (kernel/src/kernel/sched/saakm/saakm.c) turns the scheduler's hooks
 * into events: a wakeup is unblock_prepare then unblock_place on the CPU
 * chosen, a sleep is block then a pick on that CPU (newly_idle first when
 * the CPU has no work left), hotplug pushes every runnable task off the CPU
 * (block, unblock_place elsewhere) and closes it with core_exit, and so on.
 * There are no other scheduling classes: a CPU with no SaaKM task is idle.
 * Reschedules happen at once (no IPI latency). A saakm_kick_cpu() is
 * carried out when the operation, tick or hrtimer callback that raised it
 * returns (the kernel's irq_work): PREEMPT calls preempt() (default tick())
 * for a RUNNING task of the kicking policy and reschedules if it went
 * READY_TICK; a kick of an idle CPU runs newly_idle/balance_pick (up to
 * ops.balance_max tasks) and picks. uc_kick_stats() counts them.
 *
 * After every operation it checks the invariants: every transition legal
 * (libusim's state machine), no task lost (every runnable task is running,
 * READY in its CPU's runqueue, or parked by the class), no task on an
 * offline CPU, and, at each tick, no READY task waiting longer than the
 * stall timeout (the kernel's watchdog) and no CPU with READY tasks that
 * picked none for that long. The first violation, or the first error
 * libusim reports, is the failure (uc_failure()); an operation then
 * returns -1. The last events are kept for the failure report.
 *
 * Task ids are pids, 0 .. UC_MAX_TASKS - 1. One world at a time.
 */
#ifndef USIM_CLASS_H
#define USIM_CLASS_H

#include <stdio.h>
#include "usim.h"

#define UC_MAX_TASKS	1024

/**
 * struct uc_opts - a world
 * @nr_cpus: CPUs, all online at start (1..USIM_MAX_CPUS)
 * @params: module parameters, "name=value ..." (NULL: defaults)
 * @policy: the policy new tasks join (NULL: the first registered);
 *	uc_fork_in() names another one
 * @tick_ns: tick period (0: 4 ms, HZ 250)
 * @stall_ns: stall timeout of the watchdog (0: 1 s)
 * @quiet: drop the policy's printk output
 * @busy_cpus: CPUs that run another class's task when the policy loads:
 *	not idle, so the first task of the policy that runs there comes with
 *	no exit_idle (as in the kernel); they call enter_idle when they idle
 * @smt: CPUs per core (0: 1), for saakm_topo_mask(); usim_set_topology()
 * @llc: CPUs per last-level cache (0: all)
 * @node: CPUs per NUMA node (0: all)
 * @check_llc: the policy promises cache locality: a task that starts or
 *	wakes up (new_prepare, unblock_prepare) while a CPU it may use is
 *	idle in the LLC of its CPU (its parent's, or the one it last ran
 *	on, if online) must be placed in that LLC. A placement elsewhere
 *	fails the world ("placement: ...")
 */
struct uc_opts {
	int nr_cpus;
	const char *params;
	const char *policy;
	unsigned long long tick_ns;
	unsigned long long stall_ns;
	int quiet;
	unsigned long long busy_cpus;
	int smt, llc, node;
	int check_llc;
};

/* A fresh world with the policy module loaded. 0, or -errno of usim_load(). */
int uc_start(const struct uc_opts *opts);
/* NULL while nothing went wrong; else the first failure. */
const char *uc_failure(void);
/* Forget the failure (and uc_refusal()): for a test that provoked an error on purpose. */
void uc_clear_failure(void);
/*
 * Why the last operation was refused ("wake 7: task 7 is running (on cpu
 * 0)"; after a failure, "... the simulation has already failed: <the
 * failure>"), so that a failed check can say why an operation returned -1.
 * NULL if the last operation was not refused: it succeeded, or it failed
 * the world (uc_failure() says how). Queries do not change it.
 */
const char *uc_refusal(void);

/*
 * Operations. Each returns 0, or -1 if the world has failed (or fails now)
 * or the operation does not apply (a pid that does not exist, blocking a
 * task that is not running, taking the last CPU offline, ...).
 */
/* A new task forked on @cpu (its parent's CPU, which must be in @affinity:
 * the child inherits the parent's) with @affinity (0: all) and @nice. */
int uc_fork(int pid, int cpu, unsigned long long affinity, int nice);
/* The same, joining policy @policy (NULL: the one of struct uc_opts). */
int uc_fork_in(const char *policy, int pid, int cpu, unsigned long long affinity, int nice);
/* Task @parent forks @pid: the child joins the parent's policy on its CPU,
 * with its affinity, nice and sched_runtime (setparam_attr if one was set). */
int uc_fork_from(int parent, int pid);
int uc_wake(int pid);		/* a sleeping task wakes up */
int uc_block(int pid);		/* the running task goes to sleep */
int uc_yield(int pid);		/* the running task calls sched_yield() */
int uc_exit(int pid);		/* a task exits (running: it blocks first) */
int uc_set_affinity(int pid, unsigned long long mask);	/* sched_setaffinity() */
int uc_set_nice(int pid, int nice);	/* setpriority(): setparam_attr */
/* sched_setattr() of an attached task: nice and sched_runtime (ns) are
 * checked (nice outside -20..19: -EINVAL without asking the policy; then
 * checkparam_attr) and applied (setparam_attr). *@err (may be NULL): 0
 * or the errno sched_setattr() returns. */
int uc_setattr(int pid, int nice, unsigned long long runtime_ns, int *err);
/* The same with a policy attribute blob (attr->data, attr->size), as
 * sched_attr.sched_saakm_attr; setparam_attr is not called if refused. */
int uc_setattr_blob(int pid, int nice, unsigned long long runtime_ns, const void *data,
		    unsigned int size, int *err);
int uc_cpu_down(int cpu);	/* hotplug: tasks pushed away, core_exit */
int uc_cpu_up(int cpu);		/* hotplug: core_entry */
/* Let @ns pass: CPU time, hrtimers, ticks on every online CPU, watchdog. */
int uc_advance(unsigned long long ns);
/* rmmod: every task leaves (terminate, free_metadata), core_exit, exit.
 * Then checks that nothing is left: no task attached, no memory held
 * (kmalloc/alloc_percpu), no hrtimer armed. */
int uc_unload(void);
/* Live upgrade: load the @module-th module object linked in (usim.h), a
 * new version that takes the policy over. 0, or the errno that refused it
 * (the old version then runs on). uc_unload() then unloads that module;
 * uc_unload_module() unloads the old one, which only calls its exit(). */
int uc_upgrade(int module);
int uc_unload_module(int module);

/* Queries. */
int uc_curr(int cpu);			/* pid running on @cpu, -1 idle */
int uc_cpu_of(int pid);			/* task_cpu() */
int uc_state(int pid);			/* SaaKM state, -1 no such task */
int uc_runnable(int pid);
int uc_exists(int pid);
unsigned long long uc_runtime(int pid);	/* CPU time, ns */
int uc_online(int cpu);
int uc_nr_cpus(void);
unsigned long long uc_affinity(int pid);
struct saakm_policy *uc_policy(void);
/* Callbacks the class made this world, by event. */
unsigned long long uc_calls(int ev);
/* Tasks of the policy that are runnable and waiting (READY) on @cpu. */
unsigned int uc_nr_ready(int cpu);
/**
 * struct uc_kick_stats - saakm_kick_cpu() in this world
 * @kicks: calls (any flags)
 * @preempt_kicks: calls with SAAKM_KICK_PREEMPT
 * @preempt_calls: preempt() (or its default tick()) calls they made
 * @preempted: of those, the task went READY_TICK and lost its CPU
 * @idle_kicks: kicks delivered to an idle CPU (newly_idle, pull, pick)
 * @timers: hrtimer callbacks run
 *
 * Several kicks of one CPU before delivery are carried out once, like a
 * queued irq_work.
 */
struct uc_kick_stats {
	unsigned long long kicks, preempt_kicks, preempt_calls, preempted, idle_kicks, timers;
};
const struct uc_kick_stats *uc_kick_stats(void);
/* Runs the invariant checks now; 0 if they hold. */
int uc_check(void);

/* The trace of the last events (operations, callbacks, transitions). */
void uc_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void uc_trace_dump(FILE *f, int last);
/* The last few rare operations (fork, exit, affinity, hotplug), which often
 * explain a failure that shows much later. */
void uc_notable_dump(FILE *f);

#endif /* USIM_CLASS_H */
