/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim.h - the driver API of libusim, the SaaKM policy API in user space.
 *
 * A policy's unchanged source (policies/NAME/NAME.c) is compiled against the
 * shim headers in tools/usim/include (<linux/saakm.h> and the documented
 * kernel subset) and linked with libusim.a. A driver then plays the class:
 * it creates a world of CPUs and tasks, loads the module (module_init), and
 * calls the policy's callbacks one at a time with usim_call(), exactly as
 * the kernel's class core would. What the policy does in reply
 * (saakm_change_state(), saakm_running_ns(), ...) is validated like in the
 * kernel and reported through struct usim_hooks.
 *
 * Two drivers use it: "saakm replay" (feeds recorded CALLs, compares) and
 * the class simulator usim_class.h (tests/policy: unit tests and stress).
 *
 * This header is self-contained on purpose: it needs neither the shim
 * headers nor the kernel's, so a driver translation unit can include the
 * uapi headers (kernel/src/include/uapi/linux/saakm.h, saakm_replay.h) next to it.
 * States and events are plain ints: the positions in SAAKM_STATES() and
 * SAAKM_EVENTS() of kernel/src/include/uapi/linux/saakm.h.
 *
 * One world per process: policy globals (module parameters, static data)
 * are not reset between usim_unload() and the next usim_load(), unlike a
 * real module reload. Drivers that run many scenarios fork per scenario.
 */
#ifndef USIM_H
#define USIM_H

#include <stddef.h>
#include <stdint.h>

struct task_struct;
struct cpumask;
struct saakm_policy;

/* CPUs of a world, at most (the recordings' affinity masks are 64-bit). */
#define USIM_MAX_CPUS	64

/**
 * struct usim_hooks - what the driver hears from the policy; any may be NULL
 * @ctx: passed back to every hook
 * @state: a saakm_change_state() that passed validation, after it was
 *	applied: @from/@to states, @cpu the cpu argument, @rq_cpu the cpu
 *	field of the runqueue argument (-1 for NULL or a shared runqueue)
 * @input: saakm_running_ns(), saakm_exec_ns() (@dst -1),
 *	saakm_can_migrate() (@dst the CPU) or, within a callback,
 *	saakm_read_cpu() (@p NULL, @dst the CPU read) or saakm_clock_ns()
 *	(@p NULL, @dst -1), @which the
 *	SAAKM_INPUT_* of <linux/saakm_replay.h> that the kernel records it
 *	as: set *@val and return 1 to override what the simulation computed
 *	(passed in *@val)
 * @error: a refused transition, a wrong-cpu insertion, saakm_policy_error(),
 *	or a misuse of the API the simulation detected; the message names the
 *	policy, task, states. usim_call() still returns normally.
 * @call: after each usim_call() of a callback the policy implements, with
 *	its arguments and what usim_call() returns (for tracing)
 * @kick: the policy called saakm_kick_cpu(@pol, @cpu, @flags) (checked:
 *	@cpu is a possible CPU); the driver carries it out once the current
 *	callback or hrtimer returned, as the kernel's irq_work does
 * @timer: an hrtimer callback of @cpu returned (and was re-armed if it
 *	asked): the point where the kernel runs irq_work raised in it
 * @lock: a callback is about to take a lock of the policy's (spin_lock(),
 *	raw_spin_lock(), ... of <linux/spinlock.h>)
 * @nr_running: the tasks running or waiting on @cpu, for saakm_idle_cpu()
 *	and saakm_llc_nr_running() (NULL: every CPU is idle)
 */
struct usim_hooks {
	void *ctx;
	void (*state)(void *ctx, struct task_struct *p, int from, int to, int cpu, int rq_cpu);
	int (*input)(void *ctx, int which, struct task_struct *p, int dst, unsigned long long *val);
	void (*error)(void *ctx, const char *msg);
	void (*call)(void *ctx, struct saakm_policy *pol, int ev, int cpu,
		     struct task_struct *p, int a, long ret);
	void (*kick)(void *ctx, struct saakm_policy *pol, int cpu, unsigned int flags);
	void (*timer)(void *ctx, int cpu);
	void (*lock)(void *ctx);
	unsigned int (*nr_running)(void *ctx, int cpu);
};

/* World. */

/* A fresh world: @nr_cpus possible CPUs (1..USIM_MAX_CPUS), all online,
 * no task, clock at 0. @hooks is copied (NULL: none). 0 or -EINVAL. */
int usim_setup(int nr_cpus, const struct usim_hooks *hooks);
int usim_nr_cpus(void);
/* CPU hotplug as the policy sees it: cpu_online_mask and cpu_active_mask
 * (for_each_online_cpu, saakm_can_migrate). No callback: drivers call
 * core_entry/core_exit themselves (usim_class.h does). */
void usim_set_cpu_online(int cpu, int online);
int usim_cpu_online(int cpu);
/* saakm_idle_cpu()'s search, not recorded: for the simulator's own checks. */
int usim_idle_cpu(struct task_struct *p, const struct cpumask *mask, int first);

/* Module parameters, "name=value ..." (bool: Y/N/y/n/1/0; ints decimal),
 * before usim_load(). 0, or -EINVAL naming the bad one via the error hook. */
int usim_set_params(const char *params);
/* Write the current parameters as "name=value ..." into @buf. */
void usim_get_params(char *buf, size_t size);
/* A write to /sys/module/M/parameters/@name: parsed (module_param_cb():
 * its .set, which may refuse), at any time. 0, the .set's negative errno,
 * -EINVAL for a value a plain parameter cannot parse, -ENOENT, -EPERM. */
int usim_param_write(const char *name, const char *val);
/* Its value as text (the .get of a module_param_cb()), no newline. */
int usim_param_read(const char *name, char *buf, size_t size);
/* module_init: 0 or its negative errno. Registered policies get init and
 * core_entry on every online CPU, as saakm_register_policy() does. */
int usim_load(void);
/* module_exit. Tasks still attached are not drained: drivers that model
 * unload terminate them first (usim_class does, like saakm_drain()). */
void usim_unload(void);
/* The same for the n-th module object linked in (0: usim_load()'s), in
 * link order: a test of a live upgrade links two versions of a policy and
 * loads the second, which takes the policy over as in the kernel. */
int usim_load_module(int n);
void usim_unload_module(int n);
int usim_nr_modules(void);
/* Live upgrades of @pol so far. */
unsigned int usim_policy_generation(const struct saakm_policy *pol);

/* A registered policy by name, NULL name: the first registered; or NULL. */
struct saakm_policy *usim_policy(const char *name);
const char *usim_policy_name(const struct saakm_policy *pol);
int usim_policy_id(const struct saakm_policy *pol);
/* Policies registered now, and the n-th of them in slot order. */
int usim_nr_policies(void);
struct saakm_policy *usim_policy_nth(int n);
/* 1 after an error was reported for @pol (the kernel would have ejected it). */
int usim_policy_failed(const struct saakm_policy *pol);

/* Tasks. */

/* Find or create task @pid (>= 0). A new task: not attached, all CPUs
 * allowed, nice 0, task cpu 0, runtime 0. O(1). */
struct task_struct *usim_task(int pid);
/* The task, or NULL if it does not exist. */
struct task_struct *usim_task_find(int pid);
/* Forget @p (after it left its policy). */
void usim_task_free(struct task_struct *p);
int usim_task_pid(const struct task_struct *p);
int usim_task_state(const struct task_struct *p);
int usim_task_cpu(const struct task_struct *p);	/* task_cpu(p) */
/* p->saakm.cpu: the CPU it was last placed on or picked from, -1 none. */
int usim_task_saakm_cpu(const struct task_struct *p);
struct saakm_policy *usim_task_policy(const struct task_struct *p);
/* The runqueue @p is queued in: its cpu field (-1: shared), or -2 if none. */
int usim_task_rq_cpu(const struct task_struct *p);
void usim_set_affinity(struct task_struct *p, unsigned long long mask);
unsigned long long usim_task_affinity(const struct task_struct *p);
void usim_set_task_cpu(struct task_struct *p, int cpu);
void usim_set_nice(struct task_struct *p, int nice);
int usim_task_nice(const struct task_struct *p);
/* sched_attr.sched_runtime: struct saakm_attr's runtime in checkparam_attr
 * and setparam_attr calls (p->saakm.runtime). */
void usim_set_sched_runtime(struct task_struct *p, unsigned long long ns);
/* struct saakm_attr's data and size in checkparam_attr and setparam_attr
 * calls from now on (NULL, 0: none, the default). The driver owns @data. */
void usim_set_attr_data(const void *data, unsigned int size);
/* p->se.sum_exec_runtime += @ns (what saakm_running_ns() measures). */
void usim_task_add_runtime(struct task_struct *p, unsigned long long ns);
/* Attach @p to @pol in @state (NOT_QUEUED, or BLOCKED for a sleeping
 * task joining by sched_setattr), as saakm_attach(): data NULL, cpu -1.
 * usim_call(NEW_PREPARE) attaches a task of another (or no) policy itself,
 * NOT_QUEUED. */
void usim_attach(struct task_struct *p, struct saakm_policy *pol, int state);
/* Take @p out of its policy (usim_call(FREE_METADATA) does it itself). */
void usim_detach(struct task_struct *p);
/* The class's own move, saakm_force_state(): not validated, no hook; off
 * its runqueue unless READY_TICK -> READY (a relabel). */
void usim_force_state(struct task_struct *p, int state);

/* Callbacks. */

/**
 * usim_call - invoke one callback of @pol, as the class core does
 * @ev: the event number (SAAKM_EV_*)
 * @cpu: its cpu argument; for balance_pick the source CPU; ignored by the
 *	callbacks without one (they run on task_cpu(p): set it first)
 * @p: the task for task callbacks, else NULL
 * @a: balance_pick: the destination CPU; checkparam_attr/setparam_attr:
 *	ignored (the attr is { nice of @p, the blob of usim_set_attr_data(),
 *	@p's sched runtime }); else ignored
 *
 * Sets the callback context saakm_change_state() checks (which callback,
 * for which task), calls, clears it. For new_place, unblock_place, block,
 * yield, tick and preempt it also sets task_cpu(@p) to @cpu, as it is in the kernel
 * (the task is on that CPU's runqueue). A missing callback gives the class's
 * default: new_prepare/unblock_prepare the task's CPU, newly_idle and
 * balancing_select -1, balance_pick/schedule NULL, checkparam 0, preempt
 * tick().
 * NEW_PREPARE attaches @p first if needed; FREE_METADATA detaches it after.
 *
 * Return: the int the callback returned, the pid of the task it returned
 * (-1 for NULL), or 0 for a void callback.
 */
long usim_call(struct saakm_policy *pol, int ev, int cpu, struct task_struct *p, int a);
/*
 * The callback context of usim_call(): which callback runs, for which task,
 * on which CPU (the kernel keeps one per CPU, libusim one). A driver that
 * runs several callbacks at once on coroutines ("saakm replay" does, for
 * calls of different CPUs that overlap in a recording) saves it when it
 * switches away from one and restores it when it switches back.
 */
struct usim_call_state {
	int ev;
	struct task_struct *p;
	int this_cpu;
};
void usim_call_state_save(struct usim_call_state *s);
void usim_call_state_restore(const struct usim_call_state *s);

/* The task a task-returning callback returned in the last usim_call(). */
struct task_struct *usim_last_task(void);
/* Does @pol implement callback @ev? */
int usim_has_callback(const struct saakm_policy *pol, int ev);

/* Clock: logical, in ns; jiffies = ns / 4 ms (HZ 250). */
unsigned long long usim_now_ns(void);
/* Advance by @ns, firing due hrtimers in time order (their callbacks run
 * with the clock at their expiry). */
void usim_advance_ns(unsigned long long ns);
/* Advance to @ns if later than now (same as usim_advance_ns). */
void usim_set_now_ns(unsigned long long ns);

/* Names: SAAKM_STATES / SAAKM_EVENTS, "?" if out of range. */
const char *usim_state_name(int state);
const char *usim_event_name(int ev);
int usim_nr_states(void);
int usim_nr_events(void);

/* Per-policy counters and state the class simulation reads. */
unsigned int usim_policy_nr_ready(const struct saakm_policy *pol, int cpu);
int usim_policy_has_tasks(const struct saakm_policy *pol);
unsigned int usim_policy_balance_ms(const struct saakm_policy *pol);
unsigned int usim_policy_timeout_ms(const struct saakm_policy *pol);
/* ops.balance_max, 0 read as 1: tasks one balance may move. */
unsigned int usim_policy_balance_max(const struct saakm_policy *pol);
/* saakm_kick_cpu() calls of @pol, without (@preempt 0) or with SAAKM_KICK_PREEMPT. */
unsigned long long usim_kick_count(const struct saakm_policy *pol, int preempt);
/* hrtimers armed now. */
int usim_nr_timers(void);
unsigned long long usim_event_count(const struct saakm_policy *pol, int ev);
/* saakm_can_migrate() needs to know whether @p is on a CPU right now. */
void usim_set_on_cpu(struct task_struct *p, int on_cpu);
/* Topology for saakm_topo_mask() and saakm_topo_distance(): CPUs per core
 * (SMT), per last-level cache and per NUMA node, numbered in order (with
 * 2, 4, 8: cpus 0-1 share a core, 0-3 an LLC, 0-7 a node); distance 10
 * within a node, 20 between. Default 1, all CPUs, all CPUs (0 too). */
void usim_set_topology(int smt, int llc, int node);

/* Memory the policy holds: kmalloc/alloc_percpu blocks not yet freed. */
long usim_alloc_outstanding(void);
/* Errors reported so far in this world. */
int usim_error_count(void);
/* printk output: to stderr (default), or dropped when @quiet. */
void usim_set_quiet(int quiet);

#endif /* USIM_H */
