/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SaaKM policy API: write a CPU scheduling policy as a kernel module.
 *
 * A policy is a &struct saakm_ops table of event callbacks, registered with
 * saakm_register_policy() from module init, which returns an opaque handle
 * (&struct saakm_policy) for saakm_unregister_policy() at module exit. Tasks
 * join it with sched_setattr(SCHED_SAAKM, id). The class core (kernel/sched/saakm*.c)
 * turns the scheduler core's sched_class hooks into the events below, holds
 * the right locks before calling them, and keeps every task's state.
 *
 * Safety net: a policy that leaves a runnable task waiting longer than the
 * stall timeout, makes a transition the state machine forbids, returns a
 * task it may not run, or calls saakm_policy_error() is ejected: the class
 * stops calling it (bypass), moves its tasks back to SCHED_NORMAL, and shows
 * the reason in /proc/saakm/errors. The module can still be unloaded. With
 * /sys/kernel/saakm/panic_on_error set, the kernel panics instead, for a
 * developer who wants kdump or KGDB at the fault.
 *
 * Guaranteed share: SaaKM runs below every other class, but a per-CPU
 * deadline server gives its tasks at least server_runtime_us of CPU in every
 * server_period_us (/sys/kernel/saakm/, 50 ms per 1 s by default) when
 * RT, deadline or fair tasks would otherwise starve them. A policy can rely
 * on its tasks making progress, and on a lock one of them holds being
 * released, however busy the CPU is.
 *
 * The contract, in four rules:
 *
 * 1. A policy keeps runnable tasks in its own runqueues (&struct saakm_rq,
 *    usually one per CPU) and moves a task between states only with
 *    saakm_change_state(), which also inserts into and removes from those
 *    runqueues. The class validates every transition when checking is on
 *    (/sys/kernel/saakm/check_transitions) and reports the policy, task,
 *    states and call site of a bad one.
 *
 * 2. A task enqueued on CPU n is placed in CPU n's runqueue and is returned
 *    only by schedule(n). Moving it elsewhere is balancing: newly_idle() or
 *    balancing_select() name a CPU to pull from, balance_pick() hands over a
 *    task, and the class migrates it.
 *
 * 3. Callbacks run with interrupts off and must not sleep. "rq(cpu) locked"
 *    means the scheduler lock of that CPU is held, which is what protects a
 *    per-CPU runqueue: touch CPU n's runqueue only in callbacks that hold
 *    rq(n). Policies never take scheduler locks themselves; a lock of their
 *    own taken in callbacks nests inside them and must be a raw_spinlock_t.
 *
 * 4. Policies use only this header and this subset of kernel facilities:
 *    <linux/list.h>, <linux/rbtree.h>, <linux/spinlock.h>, <linux/percpu.h>,
 *    <linux/slab.h> (GFP_ATOMIC in callbacks), <linux/hrtimer.h>,
 *    <linux/moduleparam.h> (with kstrto*() for module_param_cb()),
 *    <linux/cpumask.h>, <linux/printk.h>, <linux/math64.h>. Keeping to
 *    it is what lets the same policy source be compiled in user space to
 *    replay recorded event traces. For the same reason a policy reads a
 *    task's times only through saakm_running_ns() and saakm_exec_ns(),
 *    never from the task_struct, the time only through saakm_clock_ns(),
 *    never jiffies, and passes what it reads of another CPU's
 *    state without that CPU's lock through saakm_read_cpu(), so that
 *    replay serves recorded values.
 *
 * Live upgrade: a module whose ops set @upgrade, registering the name of a
 * loaded policy, replaces it without a task leaving it. The class calls the
 * new version's init(), stops every CPU (stop_machine()), lets the old
 * version describe its state (upgrade_export()) and the new one take it
 * over (upgrade_import(), which adopts the old runqueues), and resumes
 * with the new callbacks: same policy, id, tasks and per-task data. Then
 * the old version's exit() runs, on a handle of its own whose saakm_priv()
 * is its priv, and its module's saakm_unregister_policy() later does
 * nothing else. If either version refuses, the old one goes on untouched
 * and the new module's load fails.
 *
 * Event order for one task: new_prepare -> new_place -> (schedule ->
 * [tick | preempt]* -> (block -> unblock_prepare -> unblock_place | yield)
 * )* -> terminate -> free_metadata.
 */
#ifndef _LINUX_SAAKM_H
#define _LINUX_SAAKM_H

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/sched/saakm.h>

/**
 * struct saakm_attr - attributes a task asked for with sched_setattr()
 * @nice: nice value (-20..19); policies may use it as a weight
 * @data: policy-defined blob copied from user space, or NULL
 * @size: size of @data in bytes (0..SAAKM_ATTR_MAX_SIZE)
 * @runtime: sched_runtime in ns, or 0 if the caller set none; a policy may
 *	take it as the task's requested slice, as the fair class does
 *
 * The class refuses a nice value outside -20..19 with -EINVAL before the
 * policy sees it (other classes clamp it silently).
 */
struct saakm_attr {
	int		nice;
	const void	*data;
	u32		size;
	u64		runtime;
};

/* Policies registered at once, at most. */
#define SAAKM_MAX_POLICIES	64

/* Kinds of runqueue the class provides; see saakm_rq_init(). */
enum saakm_rq_kind {
	SAAKM_RQ_FIFO,
	SAAKM_RQ_LIST,
	SAAKM_RQ_RBTREE,
};

/**
 * typedef saakm_less_fn - order of an ordered runqueue
 * @a: a task
 * @b: another task
 *
 * Return: true if @a must run before @b.
 */
typedef bool (*saakm_less_fn)(struct task_struct *a, struct task_struct *b);

/**
 * struct saakm_rq - a policy runqueue
 * @kind: FIFO (O(1) insert at tail), ordered list (O(n) insert) or rbtree
 *	(O(log n) insert and remove)
 * @less: order for LIST and RBTREE runqueues
 * @nr: number of tasks queued
 * @cpu: CPU this runqueue serves, or -1 for a shared one
 * @list: queued tasks for FIFO and LIST
 * @root: queued tasks for RBTREE
 * @adopt_gen: the class's count of upgrades when this runqueue last
 *	adopted another (saakm_rq_adopt(); class-private)
 *
 * Protected by rq(@cpu)'s lock for a per-CPU runqueue; a shared runqueue
 * (@cpu == -1) must be protected by a lock of the policy's.
 */
struct saakm_rq {
	enum saakm_rq_kind	kind;
	saakm_less_fn		less;
	unsigned int		nr;
	int			cpu;
	struct list_head	list;
	struct rb_root_cached	root;
	unsigned int		adopt_gen;
};

/**
 * struct saakm_upgrade - what a policy's old version hands to its new one
 * @version: the old version's &saakm_ops.version: the format of @state and
 *	of the per-task data (saakm_task_data())
 * @state: what the old version's upgrade_export() left here, or NULL
 *
 * See "Live upgrade" in the comment at the top of this file.
 */
struct saakm_upgrade {
	unsigned int	version;
	void		*state;
};

/*
 * Events, counted per policy in /proc/saakm/events; see SAAKM_EVENTS().
 * Each also gets an alias under its callback's name, __saakm_ev_<callback>,
 * so that the class's saakm_call() names an event once, by its callback.
 */
#define SAAKM_EVENT_ENUM(NAME, name)	SAAKM_EV_##NAME, __saakm_ev_##name = SAAKM_EV_##NAME,

enum saakm_event {
	SAAKM_EVENTS(SAAKM_EVENT_ENUM)
	SAAKM_NR_EVENTS,
};

struct saakm_policy;

/**
 * struct saakm_ops - a scheduling policy's callbacks and settings
 *
 * Fill in @name and the callbacks you need, then pass the table to
 * saakm_register_policy(), which copies it: one table can register several
 * instances (change @name between calls), and each callback's @pol says
 * which instance it serves (saakm_priv() gives the pointer passed at
 * registration). Mandatory: new_place, unblock_place, block, schedule,
 * terminate; the default of every other callback is given with it.
 *
 * Unless a callback says otherwise, it runs with interrupts off and the rq
 * lock of the CPU it is about held ("rq(cpu) locked"), inside an RCU
 * read-side section; it must not sleep, and allocates with GFP_ATOMIC.
 * Callbacks never nest. A callback that breaks its contract (a task left
 * in the wrong state, a CPU outside the task's affinity, a task returned
 * that may not run) ejects the policy: see "Safety net" above.
 */
struct saakm_ops {
	/* Thread events. */

	/**
	 * @new_prepare: a task joins the policy: choose the CPU it starts on
	 * @pol: the policy instance
	 * @p: the task joining
	 *
	 * @p joins at fork, or by sched_setattr() from another class or
	 * policy. Called exactly once per join, also for tasks bound to one
	 * CPU, before the task's first placement: new_place() for a task that
	 * is runnable when it joins, unblock_place() at its next wakeup for
	 * one that sleeps (it joins BLOCKED). Allocate @p's per-task data here
	 * (saakm_task_data()). For sched_setattr() the CPU returned is only a
	 * hint: the task stays where it is until it next wakes up.
	 *
	 * Default: the task's CPU.
	 *
	 * Context: at fork, in the parent, with the child's p->pi_lock held;
	 * for sched_setattr(), p->pi_lock and rq(task_cpu(p)) held.
	 *
	 * Return: the CPU @p should start on, which must be in p->cpus_ptr.
	 */
	int (*new_prepare)(struct saakm_policy *pol, struct task_struct *p);

	/**
	 * @new_place: put a new task in a CPU's runqueue
	 * @pol: the policy instance
	 * @p: the new task
	 * @cpu: the CPU whose runqueue @p goes in
	 *
	 * Put @p in @cpu's runqueue, normally with
	 * saakm_change_state(p, SAAKM_READY, cpu, rq). Leaving @p in any other
	 * state ejects the policy. A task that joins while it runs comes here
	 * too, with its current CPU; the class then reschedules that CPU, so
	 * schedule() decides whether it goes on. Mandatory.
	 *
	 * Context: rq(@cpu) locked.
	 */
	void (*new_place)(struct saakm_policy *pol, struct task_struct *p, int cpu);

	/**
	 * @unblock_prepare: a task woke up: choose its CPU
	 * @pol: the policy instance
	 * @p: the task that woke up
	 *
	 * Default: the CPU it last ran on.
	 *
	 * Context: p->pi_lock held, no rq lock.
	 *
	 * Return: @p's CPU, which must be in p->cpus_ptr.
	 */
	int (*unblock_prepare)(struct saakm_policy *pol, struct task_struct *p);

	/**
	 * @unblock_place: put a woken or moved task in a CPU's runqueue
	 * @pol: the policy instance
	 * @p: the task, BLOCKED or MIGRATING
	 * @cpu: the CPU whose runqueue @p goes in
	 *
	 * Put @p in @cpu's runqueue (READY). Also called after the class moved
	 * a task (affinity change, hotplug, balancing), so @cpu may differ from
	 * what unblock_prepare() returned. Leaving @p in another state ejects
	 * the policy. Mandatory.
	 *
	 * Context: rq(@cpu) locked.
	 */
	void (*unblock_place)(struct saakm_policy *pol, struct task_struct *p, int cpu);

	/**
	 * @block: a task stops being runnable on a CPU
	 * @pol: the policy instance
	 * @p: the task that stops being runnable
	 * @cpu: the CPU @p stops being runnable on
	 *
	 * @p went to sleep (it was RUNNING), or the class is moving it
	 * elsewhere (it may be READY: this takes it off your runqueue). Move it
	 * to SAAKM_BLOCKED: only this callback may, and only for @p. Mandatory.
	 *
	 * Context: rq(@cpu) locked.
	 */
	void (*block)(struct saakm_policy *pol, struct task_struct *p, int cpu);

	/**
	 * @yield: the running task called sched_yield()
	 * @pol: the policy instance
	 * @p: the task that yields, running on @cpu
	 * @cpu: the CPU @p runs on
	 *
	 * Put @p back with SAAKM_READY to let others run, or leave it RUNNING.
	 *
	 * Default: keep running.
	 *
	 * Context: rq(@cpu) locked.
	 */
	void (*yield)(struct saakm_policy *pol, struct task_struct *p, int cpu);

	/**
	 * @tick: scheduler tick while a task of the policy runs
	 * @pol: the policy instance
	 * @p: the task running on @cpu
	 * @cpu: the CPU that ticked
	 *
	 * Called every tick (every 4 ms at HZ=250) while @p runs on @cpu. To
	 * preempt @p, put it back with SAAKM_READY_TICK; the class then
	 * reschedules @cpu.
	 *
	 * Default: never preempt.
	 *
	 * Context: rq(@cpu) locked.
	 */
	void (*tick)(struct saakm_policy *pol, struct task_struct *p, int cpu);

	/**
	 * @preempt: a preempt kick reached a CPU that runs a task of the policy
	 * @pol: the policy instance
	 * @p: the task of this policy running on @cpu
	 * @cpu: the CPU kicked
	 *
	 * A saakm_kick_cpu(..., SAAKM_KICK_PREEMPT) reached @cpu while @p runs
	 * there (or, if a higher class or policy had the CPU, as @p resumes):
	 * the way to preempt a task at a wakeup or from a policy's hrtimer,
	 * between ticks. As in tick(), put @p back with SAAKM_READY_TICK to
	 * preempt it, or leave it RUNNING.
	 *
	 * Default: tick().
	 *
	 * Context: rq(@cpu) locked, hard irq or scheduler context.
	 */
	void (*preempt)(struct saakm_policy *pol, struct task_struct *p, int cpu);

	/**
	 * @terminate: a task leaves the policy
	 * @pol: the policy instance
	 * @p: the task leaving
	 *
	 * @p exited, moved to another class or policy, or the policy is going
	 * away. Move it to SAAKM_TERMINATED, which also takes it off any
	 * runqueue: only this callback may, and only for @p. Mandatory.
	 *
	 * Context: rq(task_cpu(p)) locked.
	 */
	void (*terminate)(struct saakm_policy *pol, struct task_struct *p);

	/* Core events. */

	/**
	 * @schedule: pick the next task for a CPU
	 * @pol: the policy instance
	 * @cpu: the CPU to pick a task for
	 *
	 * Pick the next task for @cpu from its runqueue and move it to
	 * SAAKM_RUNNING. Only one task may become RUNNING per call. Called only
	 * when this policy has a READY task on @cpu and no policy registered
	 * before it has work there. Mandatory.
	 *
	 * Context: rq(@cpu) locked.
	 *
	 * Return: the task picked, now RUNNING, or NULL. A task of another CPU,
	 * policy or state ejects the policy.
	 */
	struct task_struct *(*schedule)(struct saakm_policy *pol, int cpu);

	/**
	 * @newly_idle: a CPU has no task of this policy left
	 * @pol: the policy instance
	 * @cpu: the CPU left without a task of this policy
	 *
	 * Not called while the policy has no task.
	 *
	 * Default: no pull.
	 *
	 * Context: rq(@cpu) locked.
	 *
	 * Return: a CPU to pull a task from (balance_pick() is then called), or
	 * -1.
	 */
	int (*newly_idle)(struct saakm_policy *pol, int cpu);

	/**
	 * @enter_idle: a CPU is about to run its idle task
	 * @pol: the policy instance
	 * @cpu: the CPU about to run its idle task
	 *
	 * Context: rq(@cpu) locked.
	 */
	void (*enter_idle)(struct saakm_policy *pol, int cpu);

	/**
	 * @exit_idle: a CPU leaves its idle task
	 * @pol: the policy instance
	 * @cpu: the CPU leaving its idle task
	 *
	 * Context: rq(@cpu) locked.
	 */
	void (*exit_idle)(struct saakm_policy *pol, int cpu);

	/**
	 * @balancing_select: periodic balancing: choose a CPU to pull from
	 * @pol: the policy instance
	 * @cpu: the CPU balancing, to pull a task to
	 *
	 * Called every @balance_ms on each CPU.
	 *
	 * Context: hard irq context (an irq_work raised by the tick), no lock
	 * held.
	 *
	 * Return: a CPU to pull a task from to @cpu, or -1.
	 */
	int (*balancing_select)(struct saakm_policy *pol, int cpu);

	/**
	 * @balance_pick: hand over one task for balancing
	 * @pol: the policy instance
	 * @src: the CPU to take a task from
	 * @dst: the CPU the task is to move to
	 *
	 * Take one READY task that may run on @dst (saakm_can_migrate()) off
	 * @src's runqueue and move it to SAAKM_MIGRATING. The class migrates it
	 * and calls unblock_place(p, dst), then calls balance_pick() again, up
	 * to @balance_max tasks per balance. Required with newly_idle or
	 * balancing_select; the only callback that may move a task to
	 * SAAKM_MIGRATING.
	 *
	 * Context: rq(@src) and rq(@dst) locked.
	 *
	 * Return: the task, now MIGRATING, or NULL. A task that cannot move
	 * ejects the policy, except one READY but still running on @src (it
	 * joined the policy there an instant ago): the class gives it back to
	 * unblock_place() on @src.
	 */
	struct task_struct *(*balance_pick)(struct saakm_policy *pol, int src, int dst);

	/**
	 * @core_entry: a CPU is up for the policy
	 * @pol: the policy instance
	 * @cpu: the CPU that is up
	 *
	 * Called for every online CPU at registration, after @init and before
	 * any other callback, and when a CPU comes online, before it runs a
	 * task. core_entry(n) and core_exit(n) alternate, and no callback is
	 * about CPU n (as @cpu, @src or @dst) outside the pair; cpuset changes
	 * do not call them.
	 *
	 * Context: rq(@cpu) locked.
	 */
	void (*core_entry)(struct saakm_policy *pol, int cpu);

	/**
	 * @core_exit: a CPU goes down for the policy
	 * @pol: the policy instance
	 * @cpu: the CPU going down
	 *
	 * Called when a CPU goes offline, after every task left it, and for
	 * every CPU at unregistration, after the last other callback and
	 * before @exit. Not for a version an upgrade replaces: its CPUs pass
	 * to the new version, which gets core_entry() for each.
	 *
	 * Context: rq(@cpu) locked.
	 */
	void (*core_exit)(struct saakm_policy *pol, int cpu);

	/* Policy management. */

	/**
	 * @init: set up the instance
	 * @pol: the policy instance
	 *
	 * Called before any other callback. In an upgrade, @pol is a handle of
	 * the new version's own (saakm_priv() gives its priv), not yet the
	 * live policy, which saakm_register_policy() returns.
	 *
	 * Context: process context, may sleep.
	 *
	 * Return: 0, or a negative errno, which aborts the registration.
	 */
	int (*init)(struct saakm_policy *pol);

	/**
	 * @exit: tear the instance down
	 * @pol: the policy instance
	 *
	 * Called after the last callback. After an upgrade the old version's
	 * exit() runs at once, on a handle of its own: stop your timers and
	 * free what the new version did not take over.
	 *
	 * Context: process context, may sleep.
	 */
	void (*exit)(struct saakm_policy *pol);

	/**
	 * @free_metadata: release a task's per-task data
	 * @pol: the policy instance
	 * @p: the task whose data (saakm_task_data()) to release
	 *
	 * Called right after terminate(), for a task that joined but never
	 * started, and after an ejection, so nothing leaks.
	 *
	 * Context: rq(task_cpu(p)) locked, interrupts off: kfree() is fine,
	 * sleeping is not.
	 */
	void (*free_metadata)(struct saakm_policy *pol, struct task_struct *p);

	/**
	 * @checkparam_attr: validate the attributes of a sched_setattr()
	 * @pol: the policy instance
	 * @p: the task, joining the policy or attached to it
	 * @attr: the attributes asked for
	 *
	 * Default: accept.
	 *
	 * Context: rq(task_cpu(p)) and p->pi_lock held.
	 *
	 * Return: 0, or a negative errno, which sched_setattr() returns.
	 */
	int (*checkparam_attr)(struct saakm_policy *pol, struct task_struct *p,
			       const struct saakm_attr *attr);

	/**
	 * @setparam_attr: apply a task's attributes
	 * @pol: the policy instance
	 * @p: the task
	 * @attr: the attributes to apply
	 *
	 * Called after a successful sched_setattr() and when @p's nice value
	 * changes (setpriority()); and at fork, after new_prepare(), for a
	 * child whose parent had a sched_runtime (the child keeps it).
	 *
	 * Default: ignore.
	 *
	 * Context: rq locked, after sched_setattr() or a nice change; only
	 * p->pi_lock held at fork.
	 */
	void (*setparam_attr)(struct saakm_policy *pol, struct task_struct *p,
			      const struct saakm_attr *attr);

	/* Live upgrade. */

	/**
	 * @upgrade_export: hand this version's state to a new version
	 * @pol: the policy instance, about to be upgraded
	 * @up: set @up->state to what the new version needs: pointers to
	 *	your runqueues and global state (@up->version is set already)
	 *
	 * Describe your state; do not tear it down: if the new version then
	 * refuses it, this version goes on as if nothing happened. If the
	 * upgrade goes through, @exit follows, for what is left to stop and
	 * free. A saakm_policy_error() here ejects the policy, as anywhere.
	 *
	 * Default: nothing to hand over (@up->state stays NULL).
	 *
	 * Context: every CPU stopped (stop_machine()), interrupts off, no
	 * callback of the policy running anywhere; must not sleep.
	 *
	 * Return: 0, or a negative errno, which refuses the upgrade.
	 */
	int (*upgrade_export)(struct saakm_policy *pol, struct saakm_upgrade *up);

	/**
	 * @upgrade_import: take over a running policy from its old version
	 * @pol: the policy instance, which this version now owns: its id,
	 *	its tasks and their per-task data (in the old format)
	 * @up: what the old version exported
	 *
	 * Check @up->version first, and refuse a format you cannot read with
	 * -EPROTO before changing anything: the old version then stays in
	 * charge. Copy what you need of @up->state (the old version's exit()
	 * follows), and move the old version's READY tasks into your
	 * runqueues with saakm_rq_adopt(). core_entry() follows for every CPU
	 * that is up, then a READY task you left behind is given to your
	 * unblock_place(). Required for @upgrade.
	 *
	 * Context: as @upgrade_export; GFP_ATOMIC allocations only.
	 *
	 * Return: 0, or a negative errno, which refuses the upgrade and is
	 * what the new module's load fails with. Once you adopted a task,
	 * an error can no longer give the policy back: it is ejected, and
	 * the load succeeds.
	 */
	int (*upgrade_import)(struct saakm_policy *pol, const struct saakm_upgrade *up);

	/* Settings, copied at registration. */

	/** @name: unique, at most SAAKM_NAME_LEN - 1 characters */
	char name[SAAKM_NAME_LEN];

	/**
	 * @balance_ms: period of balancing_select() in ms, 0 for none; a
	 * table with balancing_select() and no period does not register
	 */
	unsigned int balance_ms;

	/** @balance_max: tasks one balance may move (balance_pick() calls); 0: 1 */
	unsigned int balance_max;

	/**
	 * @timeout_ms: stall timeout of this policy's tasks, if lower than the
	 * system's (/sys/kernel/saakm/watchdog_timeout_ms); 0: the system's
	 */
	unsigned int timeout_ms;

	/** @unprivileged: users without CAP_SYS_NICE may move their tasks here */
	bool unprivileged;

	/**
	 * @upgrade: if a policy of this @name is registered, replace it
	 * live (see "Live upgrade" above) instead of failing with -EEXIST
	 */
	bool upgrade;

	/**
	 * @version: format of this version's exported state and per-task
	 * data, handed to the next version's upgrade_import() (0: none)
	 */
	unsigned int version;
};

struct saakm_policy *__saakm_register_policy(const struct saakm_ops *ops, void *priv,
					     struct module *owner);
void __saakm_unregister_policy(struct saakm_policy *pol, struct module *owner);
int saakm_policy_id(const struct saakm_policy *pol);
void *saakm_priv(const struct saakm_policy *pol);

/**
 * saakm_register_policy - make a policy instance available to sched_setattr()
 * @ops: callbacks and settings, copied (the table may be reused at once)
 * @priv: anything; saakm_priv() returns it to the callbacks
 *
 * Calls @ops->init, assigns the id shown in /proc/saakm/policies, then
 * core_entry for every online CPU, then makes the policy visible. Among
 * policies with work on a CPU, the one registered in the lowest free slot
 * runs first: registration order, unless an unload freed a lower slot.
 *
 * With @ops->upgrade set and a policy of that name registered, replaces it
 * instead (see "Live upgrade" above) and returns it: the same policy, id
 * and tasks, now run by @ops.
 *
 * Return: the policy, or an ERR_PTR(): -EEXIST for a name in use, -EINVAL
 * for a missing mandatory callback, -ENOSPC with %SAAKM_MAX_POLICIES
 * loaded, -ENOMEM, or what @ops->init returned. An upgrade also fails with
 * -EBUSY for a policy ejected or going away, and with what either
 * version's upgrade callback returned; the kernel log says which.
 */
#define saakm_register_policy(ops, priv) __saakm_register_policy(ops, priv, THIS_MODULE)

/**
 * saakm_unregister_policy - remove a policy, moving its tasks to SCHED_NORMAL
 * @pol: a policy saakm_register_policy() returned; freed on return
 *
 * Call from module exit. No task is lost: each one is switched back to
 * SCHED_NORMAL, keeping its nice value. An ejected policy stays bypassed
 * while its tasks leave. Returns once no CPU can be running the policy's
 * code any more, and no ejection work of it is pending. In a module whose
 * policy a newer version replaced, it does nothing: the policy goes on
 * under the new version, and this one's @exit ran at the upgrade.
 *
 * Context: process context, may sleep.
 */
#define saakm_unregister_policy(pol) __saakm_unregister_policy(pol, THIS_MODULE)

void saakm_change_state(struct task_struct *p, enum saakm_task_state state,
			int cpu, struct saakm_rq *rq);

void saakm_rq_init(struct saakm_rq *rq, enum saakm_rq_kind kind,
		   saakm_less_fn less, int cpu);
struct task_struct *saakm_rq_first(struct saakm_rq *rq);
struct task_struct *saakm_rq_next(struct saakm_rq *rq, struct task_struct *p);
unsigned int saakm_rq_adopt(struct saakm_rq *rq, struct saakm_rq *old);

/**
 * saakm_rq_len - number of tasks in a runqueue
 * @rq: the runqueue
 *
 * May be read without the runqueue's lock for a heuristic (e.g. choosing a
 * CPU to steal from); the value can be stale by the time it is used. Pass
 * such a read through saakm_read_cpu(), so that replay sees the same.
 *
 * Return: the number of tasks queued in @rq.
 */
static inline unsigned int saakm_rq_len(const struct saakm_rq *rq)
{
	return READ_ONCE(rq->nr);
}

/**
 * saakm_rq_for_each - iterate over the tasks of a runqueue in order
 * @p: task cursor
 * @rq: runqueue, locked
 *
 * Do not change the state of @p inside the loop; pick a task, leave the loop,
 * then change its state.
 */
#define saakm_rq_for_each(p, rq) \
	for ((p) = saakm_rq_first(rq); (p); (p) = saakm_rq_next((rq), (p)))

/**
 * saakm_task_state - a task's current SaaKM state
 * @p: the task
 *
 * Return: the &enum saakm_task_state of @p.
 */
static inline enum saakm_task_state saakm_task_state(const struct task_struct *p)
{
	return READ_ONCE(p->saakm.state);
}

/**
 * saakm_task_cpu - the CPU of a task's last placement or pick
 * @p: the task
 *
 * The CPU whose runqueue @p was last placed on (saakm_change_state() to a
 * READY state) or picked from (to RUNNING). It is where a policy counted
 * @p when it queued it, which task_cpu() may no longer be once the core
 * has moved the task.
 *
 * Return: that CPU.
 */
static inline int saakm_task_cpu(const struct task_struct *p)
{
	return READ_ONCE(p->saakm.cpu);
}

/**
 * saakm_task_data - per-task data pointer owned by the policy
 * @p: the task
 *
 * The policy may store anything here (e.g. allocated in new_prepare and
 * freed in free_metadata). NULL until the policy sets it.
 *
 * Return: a pointer to the per-task data slot of @p.
 */
static inline void **saakm_task_data(struct task_struct *p)
{
	return &p->saakm.data;
}

/* Flags of saakm_kick_cpu(). */
#define SAAKM_KICK_PREEMPT	BIT(0)	/* ask preempt() about the running task */

void saakm_kick_cpu(struct saakm_policy *pol, int cpu, unsigned int flags);
unsigned int saakm_nice_weight(int nice);
bool saakm_can_migrate(struct task_struct *p, int dst_cpu);
u64 saakm_running_ns(struct task_struct *p);
u64 saakm_exec_ns(struct task_struct *p);
u64 saakm_clock_ns(struct saakm_policy *pol);
u64 __saakm_read_cpu(struct saakm_policy *pol, int cpu, u64 val);
DECLARE_STATIC_KEY_FALSE(saakm_recording_key);

/**
 * saakm_read_cpu - a value of another CPU's state, read without its lock
 * @pol: the policy that reads it (the callback's @pol)
 * @cpu: the CPU whose state it is, or -1 for state the CPUs share
 * @val: the value, as read (READ_ONCE() of a field others write)
 *
 * A callback may read another CPU's state without that CPU's lock, as a
 * hint: queue lengths or loads, to choose a CPU to pull from or to wake a
 * task on. Nothing orders such a read with that CPU's changes, so a
 * recording cannot tell which value the policy saw. Pass the value through
 * this function: while @pol is recorded, the class records it as an INPUT
 * within the call, and "saakm replay" gives the policy the recorded value,
 * so that the decision replays as it was taken. The same goes for state a
 * timer of the policy's changes, and for shared state read under a lock of
 * the policy's (the record also tells replay when the lock was held).
 * Reads under the rq lock that protects the state (the callback's own CPU,
 * both CPUs of balance_pick()) need not, nor does a read that only picks
 * a CPU for saakm_kick_cpu(), which replay does not check. From callbacks
 * only; not recording, it costs a static branch.
 *
 * Return: @val.
 */
static __always_inline u64 saakm_read_cpu(struct saakm_policy *pol, int cpu, u64 val)
{
	if (static_branch_unlikely(&saakm_recording_key))
		return __saakm_read_cpu(pol, cpu, val);
	return val;
}
void saakm_policy_error(struct saakm_policy *pol, const char *fmt, ...)
	__printf(2, 3);

/**
 * saakm_param_set_uint - set an unsigned int module parameter within a range
 * @val: the text written
 * @kp: the parameter
 * @lo: the lowest value allowed
 * @hi: the highest value allowed
 * @off: 0 is allowed too, meaning "off"
 * @mod: the module's name, for the message
 *
 * The &kernel_param_ops.set of SAAKM_PARAM_UINT(), usable in a policy's own.
 *
 * Return: 0 and the value stored, or -EINVAL and a kernel log message that
 * says what is allowed, for text that is not a number in @lo..@hi (or 0).
 */
static inline int saakm_param_set_uint(const char *val, const struct kernel_param *kp,
				       unsigned int lo, unsigned int hi, bool off,
				       const char *mod)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || ((v < lo || v > hi) && (v || !off))) {
		pr_err("%s: %s=%s refused: allowed %s%u..%u\n", mod, kp->name, val,
		       off ? "0 (off) or " : "", lo, hi);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

#define __SAAKM_PARAM_UINT(name, def, lo, hi, off, perm, desc)			\
	static unsigned int name = (def);					\
	static int name##_set(const char *val, const struct kernel_param *kp)	\
	{									\
		return saakm_param_set_uint(val, kp, lo, hi, off, KBUILD_MODNAME); \
	}									\
	static const struct kernel_param_ops name##_ops = {			\
		.set = name##_set,						\
		.get = param_get_uint,						\
	};									\
	module_param_cb(name, &name##_ops, &name, perm);			\
	MODULE_PARM_DESC(name, desc)

/**
 * SAAKM_PARAM_UINT - an unsigned int module parameter checked against a range
 * @name: the variable, and the parameter's name
 * @def: its default value
 * @lo: the lowest value allowed
 * @hi: the highest value allowed
 * @perm: sysfs permissions: 0644 to allow changes at run time, 0444 not
 * @desc: what it is, for modinfo (the range and default are appended)
 *
 * Defines ``static unsigned int name`` as a module parameter. A value that
 * is not a number in @lo..@hi is refused with -EINVAL, at load time and on
 * a sysfs write, and the kernel log says what is allowed: a policy should
 * not run with a value it silently clamped. Read a 0644 parameter with
 * READ_ONCE() in callbacks.
 */
#define SAAKM_PARAM_UINT(name, def, lo, hi, perm, desc)				\
	__SAAKM_PARAM_UINT(name, def, lo, hi, false, perm,			\
			   desc " (" #lo ".." #hi ", default " #def ")")

/**
 * SAAKM_PARAM_UINT_OFF - the same, where 0 is also allowed and means "off"
 * @name: the variable, and the parameter's name
 * @def: its default value
 * @lo: the lowest value allowed besides 0
 * @hi: the highest value allowed
 * @perm: sysfs permissions
 * @desc: what it is, for modinfo (the range and default are appended)
 *
 * For a feature with a useful range that does not reach down to 0, such as
 * a period in ms: 0 turns it off, 1..@lo-1 is refused.
 */
#define SAAKM_PARAM_UINT_OFF(name, def, lo, hi, perm, desc)			\
	__SAAKM_PARAM_UINT(name, def, lo, hi, true, perm,			\
			   desc " (0: off, " #lo ".." #hi ", default " #def ")")

/* Topology levels, from the closest CPUs to the whole machine. */
enum saakm_topo_level {
	SAAKM_TOPO_SMT,
	SAAKM_TOPO_CLUSTER,
	SAAKM_TOPO_LLC,
	SAAKM_TOPO_NUMA,
	SAAKM_TOPO_SYSTEM,
	SAAKM_NR_TOPO_LEVELS,
};

const struct cpumask *saakm_topo_mask(int cpu, enum saakm_topo_level level);
int saakm_topo_distance(int cpu_a, int cpu_b);
int saakm_idle_cpu(struct saakm_policy *pol, struct task_struct *p,
		   const struct cpumask *mask, int first);
unsigned int saakm_llc_nr_running(struct saakm_policy *pol, int cpu);

/**
 * saakm_llc_cpus - the online CPUs that share @cpu's last-level cache
 * @cpu: an online CPU
 *
 * saakm_topo_mask() at SAAKM_TOPO_LLC: the cache topology the firmware
 * reports (sysfs's cache/index3/shared_cpu_list), not the scheduler's
 * domains, so a cpuset partition that splits an LLC does not split it
 * here; the task's affinity keeps it within its partition.
 *
 * Return: a cpumask, valid until the next hotplug operation.
 */
static inline const struct cpumask *saakm_llc_cpus(int cpu)
{
	return saakm_topo_mask(cpu, SAAKM_TOPO_LLC);
}

/**
 * saakm_llc_id - which last-level cache @cpu is behind
 * @cpu: an online CPU
 *
 * The lowest-numbered online CPU of @cpu's LLC: equal for two CPUs exactly
 * when they share the cache, and below nr_cpu_ids, so it indexes a per-CPU
 * array. It changes only when hotplug takes that lowest CPU out: a policy
 * that keeps state per LLC looks it up again in cpu_online()/cpu_offline().
 *
 * Return: the id, a CPU number.
 */
static inline int saakm_llc_id(int cpu)
{
	return cpumask_first(saakm_llc_cpus(cpu));
}

#endif /* _LINUX_SAAKM_H */
