/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SaaKM policy API: write a CPU scheduling policy as a kernel module.
 *
 * A policy is a &struct saakm_policy filled with event callbacks and
 * registered with saakm_register_policy() from module init. Tasks join it with
 * sched_setattr(SCHED_SAAKM, id). The class core (kernel/sched/saakm*.c)
 * turns the scheduler core's sched_class hooks into the events below, holds
 * the right locks before calling them, and keeps every task's state.
 *
 * Safety net: a policy that leaves a runnable task waiting longer than the
 * stall timeout, makes a transition the state machine forbids, returns a
 * task it may not run, or calls saakm_policy_error() is ejected: the class
 * stops calling it (bypass), moves its tasks back to SCHED_NORMAL, and shows
 * the reason in /proc/saakm/errors. The module can still be unloaded.
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
 *    rq(n). Policies never take scheduler locks themselves.
 *
 * 4. Policies use only this header and this subset of kernel facilities:
 *    <linux/list.h>, <linux/rbtree.h>, <linux/spinlock.h>, <linux/percpu.h>,
 *    <linux/slab.h> (GFP_ATOMIC in callbacks), <linux/hrtimer.h>,
 *    <linux/moduleparam.h>, <linux/cpumask.h>, <linux/printk.h>. Keeping to
 *    it is what lets the same policy source be compiled in user space to
 *    replay recorded event traces.
 *
 * Event order for one task: new_prepare -> new_place -> (schedule ->
 * [tick]* -> (block -> unblock_prepare -> unblock_place | yield)
 * )* -> terminate -> free_metadata.
 */
#ifndef _LINUX_SAAKM_H
#define _LINUX_SAAKM_H

#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/sched/saakm.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <uapi/linux/saakm.h>

/**
 * struct saakm_attr - attributes a task asked for with sched_setattr()
 * @nice: nice value (-20..19); policies may use it as a weight
 * @data: policy-defined blob copied from user space, or NULL
 * @size: size of @data in bytes (0..SAAKM_ATTR_MAX_SIZE)
 */
struct saakm_attr {
	int		nice;
	const void	*data;
	u32		size;
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
};

/*
 * Per-policy event counters, shown in /proc/saakm/events. The order matches
 * saakm_event_names[] in the class core.
 */
enum saakm_event {
	SAAKM_EV_NEW_PREPARE,
	SAAKM_EV_NEW_PLACE,
	SAAKM_EV_UNBLOCK_PREPARE,
	SAAKM_EV_UNBLOCK_PLACE,
	SAAKM_EV_BLOCK,
	SAAKM_EV_YIELD,
	SAAKM_EV_TICK,
	SAAKM_EV_TERMINATE,
	SAAKM_EV_SCHEDULE,
	SAAKM_EV_NEWLY_IDLE,
	SAAKM_EV_ENTER_IDLE,
	SAAKM_EV_EXIT_IDLE,
	SAAKM_EV_BALANCING_SELECT,
	SAAKM_EV_BALANCE_PICK,
	SAAKM_EV_CORE_ENTRY,
	SAAKM_EV_CORE_EXIT,
	SAAKM_EV_FREE_METADATA,
	SAAKM_EV_CHECKPARAM,
	SAAKM_EV_SETPARAM,
	SAAKM_EV_MIGRATED,
	SAAKM_NR_EVENTS,
};

/* Private to the class core: one policy's per-CPU bookkeeping. */
struct saakm_policy_pcpu {
	unsigned int		nr_ready;	/* READY tasks placed on this CPU */
	struct list_head	preempted;	/* RUNNING tasks a higher class took the CPU from */
	unsigned long		next_balance;	/* jiffies of the next balancing_select() */
	unsigned long		last_pick;	/* jiffies: last pick, or first READY task */
	bool			balance_due;
	bool			entered;	/* core_entry() ran, core_exit() not yet */
	u64			events[SAAKM_NR_EVENTS];
};

/**
 * struct saakm_policy - a scheduling policy
 *
 * Fill in @name and the callbacks you need, then saakm_register_policy().
 * Mandatory: new_place, unblock_place, block, schedule, terminate. Every
 * other callback is optional; the default is given with each.
 *
 * Thread events:
 *
 * @new_prepare: a task joined the policy (fork, or sched_setattr from another
 *	class or policy). Return the CPU it should start on (any CPU in
 *	p->cpus_ptr; another CPU ejects the policy). Allocate per-task data
 *	here if needed (GFP_ATOMIC): it is called exactly once per join,
 *	before new_place(), also for tasks bound to one CPU. At fork it runs
 *	in the parent with the child's p->pi_lock held; for a task moved with
 *	sched_setattr rq(task_cpu(p)) is held too and the returned CPU is only
 *	a hint: the task stays where it is until it next wakes up.
 *	Default: the task's current CPU.
 * @new_place: put new task @p in CPU @cpu's runqueue, normally with
 *	saakm_change_state(p, SAAKM_READY, cpu, rq). rq(@cpu) locked.
 * @unblock_prepare: @p woke up; return its CPU. p->pi_lock held, no rq lock.
 *	Default: the CPU it last ran on.
 * @unblock_place: put @p, which was BLOCKED or MIGRATING, in @cpu's
 *	runqueue. Also called after the class moved a task (affinity change,
 *	hotplug, balancing), so @cpu may differ from what unblock_prepare()
 *	returned. rq(@cpu) locked.
 * @block: @p stops being runnable on @cpu: it went to sleep (it was RUNNING),
 *	or the class is moving it elsewhere (it may be READY: take it off your
 *	runqueue). Move it to SAAKM_BLOCKED. rq(@cpu) locked. This is the only
 *	callback that may move a task to SAAKM_BLOCKED, and only @p.
 * @yield: @p, running on @cpu, called sched_yield(). Put it back with
 *	SAAKM_READY to let others run, or leave it RUNNING. rq(@cpu) locked.
 *	Default: keep running.
 * @tick: scheduler tick while @p runs on @cpu. To preempt it, put it back
 *	with SAAKM_READY_TICK; the class then reschedules @cpu. rq(@cpu)
 *	locked. Default: never preempt.
 * @terminate: @p leaves the policy: it exited, moved to another class or
 *	policy, or the policy is going away. Move it to SAAKM_TERMINATED (this
 *	also takes it off any runqueue). rq(task_cpu(p)) locked. Only this
 *	callback may move a task to SAAKM_TERMINATED, and only @p.
 *
 * Core events:
 *
 * @schedule: pick the next task for @cpu from its runqueue, move it to
 *	SAAKM_RUNNING and return it, or return NULL. Called only when this
 *	policy has a READY task on @cpu and no earlier policy does. rq(@cpu)
 *	locked.
 * @newly_idle: @cpu has no task of this policy left. Return a CPU to pull a
 *	task from (then balance_pick() is called), or -1. rq(@cpu) locked.
 * @enter_idle: @cpu is about to run its idle task. rq(@cpu) locked.
 * @exit_idle: @cpu leaves its idle task. rq(@cpu) locked.
 * @balancing_select: periodic balancing, every @balance_ms on each CPU.
 *	Return a CPU to pull a task from to @cpu, or -1. No lock held.
 * @balance_pick: take one READY task off @src's runqueue that may run on
 *	@dst (saakm_can_migrate()), move it to SAAKM_MIGRATING and return it;
 *	or return NULL. The class migrates it and calls unblock_place(p, dst).
 *	rq(@src) and rq(@dst) locked. Required if newly_idle or
 *	balancing_select is set. Only this callback may move a task to
 *	SAAKM_MIGRATING.
 * @core_entry: @cpu is up: called for every online CPU at registration,
 *	after @init and before any other callback, and when a CPU comes online
 *	(before it runs any task). rq(@cpu) locked.
 * @core_exit: @cpu goes down: called when a CPU goes offline, after every
 *	task has left it, and for every CPU at unregistration, after the last
 *	other callback and before @exit. rq(@cpu) locked.
 *	core_entry(n) and core_exit(n) alternate, and the policy gets no
 *	callback about CPU n (as @cpu, or as @src/@dst) outside the pair;
 *	cpuset changes that rebuild scheduling domains do not call them.
 *
 * Policy management:
 *
 * @init: set up global state, before any other callback. Process context,
 *	may sleep; a negative return aborts registration.
 * @exit: tear down global state, after the last callback. May sleep.
 * @free_metadata: release per-task data (saakm_task_data()); called right
 *	after terminate, and for a task that joined but failed to start;
 *	also after an ejection, so that nothing leaks. rq(task_cpu(p)) locked,
 *	interrupts off: do not sleep (kfree() is fine).
 * @checkparam_attr: validate @attr for @p (joining or already attached).
 *	Return 0 or a negative errno, which sched_setattr() returns. rq and
 *	p->pi_lock held. Default: accept.
 * @setparam_attr: apply @attr to @p: after a successful sched_setattr(),
 *	and when the nice value changes (setpriority()). rq held.
 *
 * Settings:
 *
 * @name: unique name, at most SAAKM_NAME_LEN - 1 characters
 * @balance_ms: period of balancing_select() in milliseconds, 0 for none
 * @timeout_ms: stall timeout for this policy's tasks, if lower than the
 *	system's (/sys/kernel/saakm/watchdog_timeout_ms); 0 for the system's
 * @unprivileged: let users without CAP_SYS_NICE move their own tasks here
 * @owner: set by saakm_register_policy() to the calling module
 *
 * Private to the class core, do not touch: @id, @slot, @state, @pcpu, @list,
 * @tasks, @lock, @nr_tasks, @nr_bad_transitions, @eject_irq_work,
 * @eject_work, @reason_set, @reason.
 */
struct saakm_policy {
	int  (*new_prepare)(struct task_struct *p);
	void (*new_place)(struct task_struct *p, int cpu);
	int  (*unblock_prepare)(struct task_struct *p);
	void (*unblock_place)(struct task_struct *p, int cpu);
	void (*block)(struct task_struct *p, int cpu);
	void (*yield)(struct task_struct *p, int cpu);
	void (*tick)(struct task_struct *p, int cpu);
	void (*terminate)(struct task_struct *p);

	struct task_struct *(*schedule)(int cpu);
	int  (*newly_idle)(int cpu);
	void (*enter_idle)(int cpu);
	void (*exit_idle)(int cpu);
	int  (*balancing_select)(int cpu);
	struct task_struct *(*balance_pick)(int src, int dst);
	void (*core_entry)(int cpu);
	void (*core_exit)(int cpu);

	int  (*init)(void);
	void (*exit)(void);
	void (*free_metadata)(struct task_struct *p);
	int  (*checkparam_attr)(struct task_struct *p, const struct saakm_attr *attr);
	void (*setparam_attr)(struct task_struct *p, const struct saakm_attr *attr);

	char			name[SAAKM_NAME_LEN];
	unsigned int		balance_ms;
	unsigned int		timeout_ms;
	bool			unprivileged;
	struct module		*owner;

	/* Private to the class core. */
	int			id;
	int			slot;
	int			state;
	struct saakm_policy_pcpu __percpu *pcpu;
	struct list_head	list;
	struct list_head	tasks;
	raw_spinlock_t		lock;
	atomic_t		nr_tasks;
	atomic_t		nr_bad_transitions;
	struct irq_work		eject_irq_work;
	struct work_struct	eject_work;
	bool			reason_set;
	char			reason[128];
};

int __saakm_register_policy(struct saakm_policy *policy, struct module *owner);
void saakm_unregister_policy(struct saakm_policy *policy);

/**
 * saakm_register_policy - make a policy available to sched_setattr()
 * @policy: the policy, alive until saakm_unregister_policy() returns
 *
 * Calls @policy->init, assigns the id shown in /proc/saakm/policies, then
 * core_entry for every online CPU, then makes the policy visible. Among
 * policies with work on a CPU, the one registered in the lowest free slot
 * runs first: registration order, unless an unload freed a lower slot.
 *
 * Return: the policy id (> 0) or a negative errno (-EEXIST for a name in use,
 * -EBUSY for a policy registered already, -EINVAL for a missing mandatory
 * callback, -ENOSPC with %SAAKM_MAX_POLICIES loaded).
 */
#define saakm_register_policy(policy) __saakm_register_policy(policy, THIS_MODULE)

void saakm_change_state(struct task_struct *p, enum saakm_task_state state,
			int cpu, struct saakm_rq *rq);

void saakm_rq_init(struct saakm_rq *rq, enum saakm_rq_kind kind,
		   saakm_less_fn less, int cpu);
struct task_struct *saakm_rq_first(struct saakm_rq *rq);
struct task_struct *saakm_rq_next(struct saakm_rq *rq, struct task_struct *p);

/**
 * saakm_rq_len - number of tasks in a runqueue
 * @rq: the runqueue
 *
 * May be read without the runqueue's lock for a heuristic (e.g. choosing a
 * CPU to steal from); the value can be stale by the time it is used.
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

bool saakm_can_migrate(struct task_struct *p, int dst_cpu);
u64 saakm_running_ns(struct task_struct *p);
void saakm_policy_error(struct saakm_policy *policy, const char *fmt, ...)
	__printf(2, 3);

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

#endif /* _LINUX_SAAKM_H */
