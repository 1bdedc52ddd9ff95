// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM policies: registration, tasks joining and leaving a policy, the task
 * state machine, runqueue helpers, and the small services the API exports.
 *
 * Lifetime. The class takes no module reference per task: a policy module
 * can always be unloaded. Instead saakm_unregister_policy() refuses new
 * tasks, moves every attached task back to SCHED_NORMAL, and waits for an
 * RCU grace period. Every callback runs inside an RCU read-side section
 * (under a scheduler lock or with interrupts off), so after the grace period
 * nothing can still be executing policy code.
 *
 * Locking. A policy's list of tasks is protected by its raw spinlock, which
 * nests inside rq locks and p->pi_lock. Everything else about a task is
 * protected by its rq lock, as for every other scheduling class.
 *
 * Safety net. saakm_eject() is the single way a policy fails: first error
 * wins, the policy is bypassed at once (saakm.c stops calling it), and a
 * work item moves its tasks back to SCHED_NORMAL. Errors come from the
 * watchdog (a READY task waiting longer than the timeout while its CPU was
 * free for it), the tick (no pick at all on a CPU), the state machine, the
 * checks on what callbacks return, saakm_policy_error(), and SysRq-K.
 */
#include <linux/sysrq.h>
#include "saakm_internal.h"

LIST_HEAD(saakm_policies);
struct saakm_policy __rcu *saakm_slots[SAAKM_MAX_POLICIES];
DEFINE_PER_CPU(u64, saakm_work);
static DEFINE_MUTEX(saakm_mutex);
static int saakm_last_id;
static u64 saakm_slots_used;	/* under saakm_mutex */

DEFINE_STATIC_KEY_FALSE(saakm_active_key);
DEFINE_STATIC_KEY_FALSE(saakm_balance_key);
DEFINE_STATIC_KEY_TRUE(saakm_check_key);
DEFINE_STATIC_KEY_TRUE(saakm_log_transitions_key);

/* Stall timeout for every policy, /sys/kernel/saakm/watchdog_timeout_ms. */
unsigned int saakm_watchdog_timeout_ms = 5000;
static void saakm_watchdog_workfn(struct work_struct *work);
static DECLARE_DELAYED_WORK(saakm_watchdog_work, saakm_watchdog_workfn);

static const char * const saakm_state_names[SAAKM_NR_STATES] = {
	[SAAKM_NOT_QUEUED]	= "NOT_QUEUED",
	[SAAKM_READY]		= "READY",
	[SAAKM_READY_TICK]	= "READY_TICK",
	[SAAKM_RUNNING]		= "RUNNING",
	[SAAKM_BLOCKED]		= "BLOCKED",
	[SAAKM_MIGRATING]	= "MIGRATING",
	[SAAKM_TERMINATED]	= "TERMINATED",
};

const char *saakm_state_name(enum saakm_task_state state)
{
	return state < SAAKM_NR_STATES ? saakm_state_names[state] : "?";
}

/*
 * Transitions a policy may make, by source state (the paper's Figure 2).
 * Three targets are further tied to one callback (saakm_in_context()):
 * BLOCKED only from block() for that task, TERMINATED only from
 * terminate() for that task, MIGRATING only from balance_pick(). Anything
 * else would leave a runnable task in no runqueue and on no CPU.
 * The class itself also moves tasks NOT_QUEUED -> RUNNING (joined while
 * running), READY_TICK -> READY (left the CPU) and * -> BLOCKED (PI boost),
 * with saakm_force_state().
 */
#define S(x) BIT(SAAKM_##x)
static const u8 saakm_allowed[SAAKM_NR_STATES] = {
	[SAAKM_NOT_QUEUED]	= S(READY) | S(TERMINATED),
	[SAAKM_READY]		= S(RUNNING) | S(BLOCKED) | S(MIGRATING) | S(TERMINATED),
	[SAAKM_READY_TICK]	= S(RUNNING) | S(BLOCKED) | S(MIGRATING) | S(TERMINATED),
	[SAAKM_RUNNING]		= S(READY) | S(READY_TICK) | S(BLOCKED) | S(TERMINATED),
	[SAAKM_BLOCKED]		= S(READY) | S(TERMINATED),
	[SAAKM_MIGRATING]	= S(READY) | S(TERMINATED),
	[SAAKM_TERMINATED]	= 0,
};
#undef S

/* Runqueue helpers. The caller holds the lock that protects @rq. */

static void rq_insert(struct saakm_rq *rq, struct task_struct *p)
{
	struct rb_node **link = &rq->root.rb_root.rb_node, *parent = NULL;
	struct task_struct *q;
	bool leftmost = true;

	switch (rq->kind) {
	case SAAKM_RQ_FIFO:
		list_add_tail(&p->saakm.node, &rq->list);
		break;
	case SAAKM_RQ_LIST:
		/* Before the first task @p must run ahead of: FIFO among equals. */
		list_for_each_entry(q, &rq->list, saakm.node)
			if (rq->less(p, q))
				break;
		list_add_tail(&p->saakm.node, &q->saakm.node);
		break;
	case SAAKM_RQ_RBTREE:
		while (*link) {
			parent = *link;
			q = rb_entry(parent, struct task_struct, saakm.rb);
			if (rq->less(p, q)) {
				link = &parent->rb_left;
			} else {
				link = &parent->rb_right;
				leftmost = false;
			}
		}
		rb_link_node(&p->saakm.rb, parent, link);
		rb_insert_color_cached(&p->saakm.rb, &rq->root, leftmost);
		break;
	}
	p->saakm.queue = rq;
	WRITE_ONCE(rq->nr, rq->nr + 1);
}

static void rq_remove(struct task_struct *p)
{
	struct saakm_rq *rq = p->saakm.queue;

	if (rq->kind == SAAKM_RQ_RBTREE) {
		rb_erase_cached(&p->saakm.rb, &rq->root);
		RB_CLEAR_NODE(&p->saakm.rb);
	} else {
		list_del_init(&p->saakm.node);
	}
	p->saakm.queue = NULL;
	WRITE_ONCE(rq->nr, rq->nr - 1);
}

/**
 * saakm_rq_init - initialize a policy runqueue
 * @rq: the runqueue
 * @kind: %SAAKM_RQ_FIFO, %SAAKM_RQ_LIST or %SAAKM_RQ_RBTREE
 * @less: order of @kind LIST and RBTREE (tasks that compare equal keep their
 *	arrival order); ignored for FIFO
 * @cpu: the CPU the runqueue serves, or -1 for a runqueue shared by CPUs
 */
void saakm_rq_init(struct saakm_rq *rq, enum saakm_rq_kind kind,
		   saakm_less_fn less, int cpu)
{
	rq->kind = kind;
	rq->less = less;
	rq->nr = 0;
	rq->cpu = cpu;
	INIT_LIST_HEAD(&rq->list);
	rq->root = RB_ROOT_CACHED;
	WARN_ON_ONCE(kind != SAAKM_RQ_FIFO && !less);
}
EXPORT_SYMBOL_GPL(saakm_rq_init);

/**
 * saakm_rq_first - the task at the head of a runqueue
 * @rq: the runqueue, locked
 *
 * Return: the first task (oldest for FIFO, smallest for ordered runqueues),
 * or NULL if @rq is empty. The task stays queued.
 */
struct task_struct *saakm_rq_first(struct saakm_rq *rq)
{
	struct rb_node *node;

	if (rq->kind != SAAKM_RQ_RBTREE)
		return list_first_entry_or_null(&rq->list, struct task_struct,
						saakm.node);
	node = rb_first_cached(&rq->root);
	return node ? rb_entry(node, struct task_struct, saakm.rb) : NULL;
}
EXPORT_SYMBOL_GPL(saakm_rq_first);

/**
 * saakm_rq_next - the task after @p in a runqueue
 * @rq: the runqueue, locked
 * @p: a task queued in @rq
 *
 * Return: the next task in order, or NULL after the last one.
 */
struct task_struct *saakm_rq_next(struct saakm_rq *rq, struct task_struct *p)
{
	struct rb_node *node;

	if (rq->kind != SAAKM_RQ_RBTREE) {
		if (list_is_last(&p->saakm.node, &rq->list))
			return NULL;
		return list_next_entry(p, saakm.node);
	}
	node = rb_next(&p->saakm.rb);
	return node ? rb_entry(node, struct task_struct, saakm.rb) : NULL;
}
EXPORT_SYMBOL_GPL(saakm_rq_next);

/* Leave the current state: off the runqueue, out of the READY count. */
static void leave_state(struct task_struct *p)
{
	struct sched_saakm_entity *se = &p->saakm;

	if (se->queue)
		rq_remove(p);
	if (saakm_is_ready(se->state)) {
		per_cpu_ptr(se->policy->pcpu, se->cpu)->nr_ready--;
		saakm_note_work(se->policy, se->cpu);
	}
}

/**
 * saakm_force_state - move a task to a state on the class's own authority
 * @p: the task, its rq locked
 * @state: the new state; never READY (the class does not queue tasks)
 *
 * Used for transitions the class makes itself and to repair the state after
 * a policy error. Not validated.
 */
void saakm_force_state(struct task_struct *p, enum saakm_task_state state)
{
	/* READY_TICK -> READY only relabels a task that stays queued. */
	if (!(saakm_is_ready(p->saakm.state) && saakm_is_ready(state)))
		leave_state(p);
	if (state == SAAKM_RUNNING && p->saakm.state != SAAKM_RUNNING)
		p->saakm.run_start = p->se.sum_exec_runtime;
	if (state != p->saakm.state)
		p->saakm.ready_at = jiffies;
	p->saakm.state = state;
}

/*
 * Is the callback running on this CPU allowed to move @p to @to? RUNNING is
 * for the one task schedule() returns: the first task it makes RUNNING is
 * recorded, and a second one refused (it would run on no CPU).
 */
static bool saakm_in_context(struct task_struct *p, enum saakm_task_state to)
{
	enum saakm_event ev = __this_cpu_read(saakm_ctx.ev);
	struct task_struct *for_task = __this_cpu_read(saakm_ctx.p);

	switch (to) {
	case SAAKM_RUNNING:
		if (ev != SAAKM_EV_SCHEDULE || (for_task && for_task != p))
			return false;
		__this_cpu_write(saakm_ctx.p, p);
		return true;
	case SAAKM_BLOCKED:
		return ev == SAAKM_EV_BLOCK && for_task == p;
	case SAAKM_TERMINATED:
		return ev == SAAKM_EV_TERMINATE && for_task == p;
	case SAAKM_MIGRATING:
		return ev == SAAKM_EV_BALANCE_PICK;
	default:
		return true;
	}
}

static void report_bad_transition(struct task_struct *p, enum saakm_task_state to,
				  int cpu, unsigned long ip, const char *why)
{
	struct saakm_policy *pol = p->saakm.policy;

	atomic_inc(&pol->nr_bad_transitions);
	if (static_branch_likely(&saakm_log_transitions_key))
		saakm_printk_ratelimited(KERN_ERR "saakm: policy %s: task %d (%s) on cpu %d: invalid transition %s -> %s%s at %pS\n",
				   pol->name, p->pid, p->comm, cpu,
				   saakm_state_name(p->saakm.state),
				   saakm_state_name(to), why, (void *)ip);
	saakm_eject(pol, "transition", "task %d on cpu %d: %s -> %s%s at %pS",
		    p->pid, cpu, saakm_state_name(p->saakm.state),
		    saakm_state_name(to), why, (void *)ip);
}

/**
 * saakm_change_state - move a task to a new state, and between runqueues
 * @p: the task
 * @state: the new state
 * @cpu: for %SAAKM_READY and %SAAKM_READY_TICK, the CPU whose runqueue @rq
 *	is, which must be the task's CPU; for %SAAKM_RUNNING, the CPU it runs
 *	on; ignored otherwise (pass -1)
 * @rq: for %SAAKM_READY and %SAAKM_READY_TICK, the runqueue to insert @p in;
 *	NULL otherwise
 *
 * This is the only way a policy changes a task's state. Leaving READY takes
 * the task off its runqueue; entering READY inserts it, so a task can never
 * be queued twice. With checking on (the default), a transition not in the
 * state machine is refused and reported with the policy, task, states and
 * call site; so is SAAKM_BLOCKED outside block() for @p, SAAKM_TERMINATED
 * outside terminate() for @p, SAAKM_MIGRATING outside balance_pick(), and
 * SAAKM_RUNNING outside schedule() or for a second task in one schedule().
 * An insertion for another CPU is a policy error.
 *
 * Context: the rq lock of the task's CPU is held (it is, in every callback
 * that may change this task's state).
 */
void saakm_change_state(struct task_struct *p, enum saakm_task_state state,
			int cpu, struct saakm_rq *rq)
{
	struct sched_saakm_entity *se = &p->saakm;

	if (WARN_ON_ONCE(!se->policy || state >= SAAKM_NR_STATES))
		return;
	lockdep_assert_rq_held(task_rq(p));

	if (static_branch_likely(&saakm_check_key)) {
		if (!(saakm_allowed[se->state] & BIT(state))) {
			report_bad_transition(p, state, cpu, _RET_IP_, "");
			return;
		}
		if (!saakm_in_context(p, state)) {
			report_bad_transition(p, state, cpu, _RET_IP_,
					      " outside its callback");
			return;
		}
	}
	if (saakm_is_ready(state) &&
	    (!rq || cpu != task_cpu(p) || (rq->cpu >= 0 && rq->cpu != cpu))) {
		saakm_eject(se->policy, "wrong-cpu",
			    "task %d queued for cpu %d (runqueue of cpu %d) but enqueued on cpu %d",
			    p->pid, cpu, rq ? rq->cpu : -1, task_cpu(p));
		return;
	}

	trace_saakm_state(se->policy->name, p->pid, se->state, state, cpu);
	leave_state(p);
	se->state = state;
	se->ready_at = jiffies;
	if (saakm_is_ready(state)) {
		struct saakm_policy_pcpu *pc = per_cpu_ptr(se->policy->pcpu, cpu);

		rq_insert(rq, p);
		/* The stall clock of a CPU starts with its first READY task. */
		if (!pc->nr_ready++)
			pc->last_pick = jiffies;
		saakm_note_work(se->policy, cpu);
		se->cpu = cpu;
	} else if (state == SAAKM_RUNNING) {
		se->cpu = cpu;
		se->run_start = p->se.sum_exec_runtime;
	}
}
EXPORT_SYMBOL_GPL(saakm_change_state);

/* Joining and leaving a policy. */

static struct saakm_policy *saakm_find(int id)
{
	struct saakm_policy *pol;

	for_each_saakm_policy(pol)
		if (pol->id == id)
			return pol;
	return NULL;
}

/* Interrupts are off: callers hold p->pi_lock or an rq lock. */
static void saakm_attach(struct task_struct *p, struct saakm_policy *pol,
			 enum saakm_task_state state)
{
	raw_spin_lock(&pol->lock);
	list_add_tail(&p->saakm.policy_node, &pol->tasks);
	atomic_inc(&pol->nr_tasks);
	raw_spin_unlock(&pol->lock);

	p->saakm.data = NULL;
	p->saakm.cpu = -1;
	p->saakm.state = state;
	WRITE_ONCE(p->saakm.policy, pol);
}

/**
 * saakm_detach - take a task out of its policy (terminate, free_metadata)
 * @p: the task, not enqueued in the class; its rq locked
 */
void saakm_detach(struct task_struct *p)
{
	struct saakm_policy *pol = p->saakm.policy;
	int cpu = task_cpu(p);

	if (!pol)
		return;
	WARN_ON_ONCE(p->saakm.flags & SAAKM_TF_QUEUED);

	if (!list_empty(&p->saakm.core_node)) {
		list_del_init(&p->saakm.core_node);
		saakm_note_work(pol, cpu);
	}
	if (saakm_bypassing(pol))
		saakm_force_state(p, SAAKM_TERMINATED);
	if (p->saakm.state != SAAKM_TERMINATED) {
		saakm_call_for(pol, TERMINATE, cpu, p, terminate, p);
		if (p->saakm.state != SAAKM_TERMINATED) {
			saakm_eject(pol, "callback", "terminate left task %d in state %s",
					   p->pid, saakm_state_name(p->saakm.state));
			saakm_force_state(p, SAAKM_TERMINATED);
		}
	}
	if (pol->free_metadata)
		saakm_call(pol, FREE_METADATA, cpu, free_metadata, p);
	p->saakm.data = NULL;

	raw_spin_lock(&pol->lock);
	list_del_init(&p->saakm.policy_node);
	raw_spin_unlock(&pol->lock);
	WRITE_ONCE(p->saakm.policy, NULL);
	atomic_dec(&pol->nr_tasks);
}

/*
 * new_prepare() for a forked task, here rather than in select_task_rq():
 * the core skips that hook for a task bound to one CPU or with migration
 * disabled, and the policy's per-task data would then be missing. The
 * answer is kept in p->saakm.cpu for select_task_rq_saakm().
 */
static void saakm_fork_prepare(struct task_struct *p, struct saakm_policy *pol)
{
	int cpu = task_cpu(p);

	if (pol->new_prepare)
		cpu = saakm_call_ret(pol, NEW_PREPARE, cpu, new_prepare, p);
	if (unlikely(cpu < 0 || cpu >= nr_cpu_ids ||
		     !cpumask_test_cpu(cpu, p->cpus_ptr))) {
		saakm_eject(pol, "wrong-cpu", "chose CPU %d for task %d outside its affinity",
			    cpu, p->pid);
		cpu = task_cpu(p);
	}
	p->saakm.cpu = cpu;
}

/**
 * saakm_fork - attach a new task to its parent's policy
 * @p: the child, chosen for the SaaKM class by sched_fork(); p->pi_lock held
 *
 * If the parent's policy is going away, the child starts under EEVDF.
 *
 * Return: true if @p was attached.
 */
bool saakm_fork(struct task_struct *p)
{
	struct saakm_policy *pol;
	bool attached = false;

	if (p->sched_class != &saakm_sched_class)
		return false;

	rcu_read_lock();
	pol = READ_ONCE(current->saakm.policy);
	if (pol && READ_ONCE(pol->state) == SAAKM_POLICY_ENABLED) {
		saakm_attach(p, pol, SAAKM_NOT_QUEUED);
		saakm_fork_prepare(p, pol);
		attached = true;
	}
	rcu_read_unlock();

	if (!attached) {
		p->policy = SCHED_NORMAL;
		p->sched_class = &fair_sched_class;
	}
	return attached;
}

/**
 * saakm_cancel_fork - undo saakm_fork() when the fork fails
 * @p: the child that will never run
 */
void saakm_cancel_fork(struct task_struct *p)
{
	struct rq_flags rf;
	struct rq *rq;

	if (!p->saakm.policy)
		return;
	rq = task_rq_lock(p, &rf);
	saakm_detach(p);
	task_rq_unlock(rq, p, &rf);
}

static void fill_attr(struct saakm_attr *sattr, const struct sched_attr *attr)
{
	sattr->nice = attr->sched_nice;
	sattr->data = (const void *)(unsigned long)attr->sched_saakm_attr;
	sattr->size = attr->sched_saakm_attr_size;
}

/* The policy @attr asks for: SAAKM_ID_KEEP means the task's current one. */
static struct saakm_policy *attr_policy(struct task_struct *p,
					const struct sched_attr *attr)
{
	if (attr->sched_saakm_id == SAAKM_ID_KEEP)
		return p->policy == SCHED_SAAKM ? p->saakm.policy : NULL;
	return saakm_find(attr->sched_saakm_id);
}

/**
 * saakm_check_setscheduler - validate a sched_setattr() to SCHED_SAAKM
 * @p: the target task; its rq and pi_lock held
 * @attr: the attributes, with any policy blob already copied to the kernel
 * @policy: the resolved new policy
 *
 * Return: 0, -EINVAL for an unknown or disabled policy id, -ESRCH for a
 * task that is exiting (joining only), or the error returned by the
 * policy's checkparam_attr().
 */
int saakm_check_setscheduler(struct task_struct *p, const struct sched_attr *attr,
			     int policy)
{
	struct saakm_policy *pol;
	struct saakm_attr sattr;

	if (policy != SCHED_SAAKM)
		return 0;
	pol = attr_policy(p, attr);
	if (!pol || READ_ONCE(pol->state) != SAAKM_POLICY_ENABLED)
		return -EINVAL;
	/*
	 * A task past exit_signals() may already have run task_dead(), which
	 * detaches it: attaching it now would leave it on the policy's list
	 * after it is freed. Refused under the rq lock, as sched_ext does.
	 */
	if ((p->flags & PF_EXITING) && p->saakm.policy != pol)
		return -ESRCH;
	if (!pol->checkparam_attr)
		return 0;
	fill_attr(&sattr, attr);
	return saakm_call_ret(pol, CHECKPARAM, task_cpu(p), checkparam_attr,
			      p, &sattr);
}

/**
 * saakm_user_needs_priv - does this sched_setattr() move a task into a policy?
 * @p: the target task
 * @attr: the requested attributes, policy SCHED_SAAKM
 *
 * Joining a policy, or changing policy, needs CAP_SYS_NICE unless the
 * policy is marked unprivileged (the core still requires the caller to own
 * the task).
 *
 * Return: true if the caller must be privileged.
 */
bool saakm_user_needs_priv(struct task_struct *p, const struct sched_attr *attr)
{
	struct saakm_policy *pol;
	bool ret;

	if (attr->sched_saakm_id == SAAKM_ID_KEEP)
		return p->policy != SCHED_SAAKM;
	rcu_read_lock();
	pol = saakm_find(attr->sched_saakm_id);
	ret = !pol || !pol->unprivileged;
	if (ret && p->policy == SCHED_SAAKM)
		ret = READ_ONCE(p->saakm.policy) != pol;
	rcu_read_unlock();
	return ret;
}

/**
 * saakm_attr_changed - would sched_setattr() change anything for @p?
 * @p: a SCHED_SAAKM task; its rq locked
 * @attr: the requested attributes
 *
 * Return: true if the policy, the nice value or the policy blob changes.
 */
bool saakm_attr_changed(struct task_struct *p, const struct sched_attr *attr)
{
	return attr_policy(p, attr) != p->saakm.policy ||
	       attr->sched_nice != task_nice(p) || attr->sched_saakm_attr_size;
}

/**
 * saakm_setparams - apply sched_setattr() to a task: join, leave, configure
 * @p: the task, dequeued for the change (DEQUEUE_SAVE); rq and pi_lock held
 * @attr: the attributes, checked by saakm_check_setscheduler()
 * @policy: the task's new policy
 *
 * Leaving SCHED_SAAKM, or switching policy, is a full terminate of the old
 * policy; joining is a new_prepare of the new one. The enqueue that follows
 * places a queued task (new_place); a sleeping task is placed at wakeup.
 */
void saakm_setparams(struct task_struct *p, const struct sched_attr *attr, int policy)
{
	struct saakm_policy *pol, *old = p->saakm.policy;
	struct saakm_attr sattr;

	if (policy != SCHED_SAAKM) {
		saakm_detach(p);
		return;
	}
	pol = attr_policy(p, attr);
	if (WARN_ON_ONCE(!pol))
		return;

	if (pol != old) {
		saakm_detach(p);
		saakm_attach(p, pol, task_on_rq_queued(p) ? SAAKM_NOT_QUEUED :
							     SAAKM_BLOCKED);
		if (pol->new_prepare)
			saakm_call_ret(pol, NEW_PREPARE, task_cpu(p), new_prepare, p);
	}
	if (pol->setparam_attr && !saakm_bypassing(pol)) {
		fill_attr(&sattr, attr);
		saakm_call(pol, SETPARAM, task_cpu(p), setparam_attr, p, &sattr);
	}
}

/**
 * saakm_getparams - report a task's policy id to sched_getattr()
 * @p: the task
 * @attr: attributes being returned to user space
 */
void saakm_getparams(struct task_struct *p, struct sched_attr *attr)
{
	struct saakm_policy *pol;

	rcu_read_lock();
	pol = READ_ONCE(p->saakm.policy);
	attr->sched_saakm_id = pol ? pol->id : 0;
	rcu_read_unlock();
}

/**
 * saakm_copy_attr_blob - copy a policy attribute blob from user space once
 * @attr: attributes copied by sched_copy_attr(); on success
 *	sched_saakm_attr points to the kernel copy (or is 0)
 * @blob: set to the kernel copy, to be kfree()d by the caller after use
 *
 * Return: 0, -E2BIG if the blob is larger than SAAKM_ATTR_MAX_SIZE, or
 * -EFAULT.
 */
int saakm_copy_attr_blob(struct sched_attr *attr, void **blob)
{
	void *copy;

	*blob = NULL;
	if (attr->sched_policy != SCHED_SAAKM || !attr->sched_saakm_attr_size) {
		attr->sched_saakm_attr = 0;
		attr->sched_saakm_attr_size = 0;
		return 0;
	}
	if (attr->sched_saakm_attr_size > SAAKM_ATTR_MAX_SIZE)
		return -E2BIG;
	copy = memdup_user(u64_to_user_ptr(attr->sched_saakm_attr),
			   attr->sched_saakm_attr_size);
	if (IS_ERR(copy))
		return PTR_ERR(copy);
	attr->sched_saakm_attr = (u64)(unsigned long)copy;
	*blob = copy;
	return 0;
}

/* Registration, draining and ejection. */

/*
 * Move every task of @pol back to SCHED_NORMAL. New tasks are refused by
 * then (state not ENABLED), but a sched_setattr() or fork that checked the
 * state just before may still attach one: those run under an RCU read-side
 * section, so loop until a grace period passes with no task left.
 */
static void saakm_drain(struct saakm_policy *pol)
{
	struct sched_attr attr = {
		.size		= sizeof(attr),
		.sched_policy	= SCHED_NORMAL,
	};

	do {
		for (;;) {
			struct task_struct *p;

			raw_spin_lock_irq(&pol->lock);
			p = list_first_entry_or_null(&pol->tasks, struct task_struct,
						     saakm.policy_node);
			if (p)
				get_task_struct(p);
			raw_spin_unlock_irq(&pol->lock);
			if (!p)
				break;

			attr.sched_nice = task_nice(p);
			attr.sched_flags = p->sched_reset_on_fork ?
					   SCHED_FLAG_RESET_ON_FORK : 0;
			WARN_ON_ONCE(sched_setattr_nocheck(p, &attr));
			put_task_struct(p);
			cond_resched();
		}
		synchronize_rcu();
	} while (atomic_read(&pol->nr_tasks));
}

static void saakm_eject_workfn(struct work_struct *work)
{
	struct saakm_policy *pol = container_of(work, struct saakm_policy, eject_work);

	saakm_drain(pol);
	pr_err("saakm: policy %s (id %d) ejected, its tasks now run under SCHED_NORMAL: %s\n",
	       pol->name, pol->id, pol->reason);
}

/* Errors are raised with rq locks held: queue the work from an irq_work. */
static void saakm_eject_irq_workfn(struct irq_work *work)
{
	struct saakm_policy *pol = container_of(work, struct saakm_policy, eject_irq_work);

	schedule_work(&pol->eject_work);
}

static __printf(3, 0) void saakm_veject(struct saakm_policy *policy, const char *kind,
					const char *fmt, va_list args)
{
	int len;

	if (!policy || cmpxchg(&policy->state, SAAKM_POLICY_ENABLED,
			       SAAKM_POLICY_EJECTED) != SAAKM_POLICY_ENABLED)
		return;
	len = scnprintf(policy->reason, sizeof(policy->reason), "%s: ", kind);
	vscnprintf(policy->reason + len, sizeof(policy->reason) - len, fmt, args);
	/* Readers of /proc/saakm/errors see the reason only once complete. */
	smp_store_release(&policy->reason_set, true);
	preempt_disable();
	printk_deferred_enter();
	pr_err("saakm: policy %s (id %d) error: %s\n", policy->name, policy->id,
	       policy->reason);
	printk_deferred_exit();
	preempt_enable();
	irq_work_queue(&policy->eject_irq_work);
}

/**
 * saakm_eject - eject a policy for a fault the class detected
 * @pol: the faulty policy
 * @kind: short fault kind ("stall", "transition", "wrong-cpu", ...)
 * @fmt: printf-style details
 *
 * The first error wins: the policy is bypassed from now on, new tasks are
 * refused, and its tasks are moved back to SCHED_NORMAL from a workqueue.
 * The reason ("kind: details") is logged and shown in /proc/saakm/errors.
 * Callable in any context, including with rq locks held.
 */
void saakm_eject(struct saakm_policy *pol, const char *kind, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	saakm_veject(pol, kind, fmt, args);
	va_end(args);
}

/**
 * saakm_policy_error - report a bug from inside a policy and eject it
 * @policy: the faulty policy
 * @fmt: printf-style reason, shown in the kernel log and /proc/saakm/errors
 *
 * Same effect as a fault found by the class (see saakm_eject()): the class
 * stops calling the policy and moves its tasks back to SCHED_NORMAL.
 * Callable from any callback.
 */
void saakm_policy_error(struct saakm_policy *policy, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	saakm_veject(policy, "error", fmt, args);
	va_end(args);
}
EXPORT_SYMBOL_GPL(saakm_policy_error);

/**
 * saakm_timeout - stall timeout of a policy, in jiffies
 * @pol: the policy
 *
 * Return: the system timeout, or the policy's own if it is lower.
 */
unsigned long saakm_timeout(struct saakm_policy *pol)
{
	unsigned int ms = READ_ONCE(saakm_watchdog_timeout_ms);

	if (pol->timeout_ms && pol->timeout_ms < ms)
		ms = pol->timeout_ms;
	return msecs_to_jiffies(ms);
}

/**
 * saakm_cpu_free_for - could @pol run a task on @cpu right now?
 * @pol: the policy
 * @cpu: the CPU
 *
 * A READY task waiting while its CPU runs a higher class, or an earlier
 * policy, is not stalled by its policy. Read without the rq lock.
 *
 * Return: true if @cpu is idle or runs a task of @pol or a later policy.
 */
bool saakm_cpu_free_for(struct saakm_policy *pol, int cpu)
{
	struct task_struct *curr = READ_ONCE(cpu_rq(cpu)->curr);
	struct saakm_policy *cp;

	if (is_idle_task(curr))
		return true;
	if (READ_ONCE(curr->sched_class) != &saakm_sched_class)
		return false;
	cp = READ_ONCE(curr->saakm.policy);
	return !cp || cp->slot >= pol->slot;
}

/* Tasks looked at per lock hold, by the watchdog and by the bypass pick. */
#define SAAKM_SCAN_BATCH	32

/*
 * Runnable, but neither in a policy runqueue, nor running, nor parked by the
 * class: the policy dropped it, and nothing will ever run it. rq locked.
 */
static bool saakm_in_limbo(struct task_struct *p)
{
	struct rq *rq = task_rq(p);

	return (p->saakm.flags & SAAKM_TF_QUEUED) && !task_on_cpu(rq, p) &&
	       !task_current(rq, p) && !saakm_is_ready(p->saakm.state) &&
	       list_empty(&p->saakm.core_node);
}

/*
 * Confirm a limbo candidate under its rq lock (the scan reads states without
 * it), then eject the policy and park the task, which the class then runs.
 */
static void saakm_check_limbo(struct saakm_policy *pol, struct task_struct *p,
			      unsigned long timeout)
{
	struct rq_flags rf;
	struct rq *rq;

	rq = task_rq_lock(p, &rf);
	if (p->saakm.policy == pol && saakm_in_limbo(p) &&
	    time_after(jiffies, p->saakm.ready_at + timeout)) {
		saakm_eject(pol, "stall", "task %d (%s) runnable for %u ms on cpu %d in state %s, in no runqueue",
			    p->pid, p->comm, jiffies_to_msecs(jiffies - p->saakm.ready_at),
			    task_cpu(p), saakm_state_name(p->saakm.state));
		saakm_force_state(p, SAAKM_RUNNING);
		saakm_park(p, task_cpu(p), true);
		resched_curr(rq);
	}
	task_rq_unlock(rq, p, &rf);
}

/*
 * One task's stall check, read without its rq lock. A READY task older than
 * the timeout on a CPU free for it is stalled; a task that may be in limbo
 * is returned as a candidate to confirm under the rq lock.
 */
static bool saakm_task_stalled(struct saakm_policy *pol, struct task_struct *p,
			       unsigned long timeout, struct task_struct **limbo)
{
	unsigned long since = READ_ONCE(p->saakm.ready_at);
	enum saakm_task_state state = READ_ONCE(p->saakm.state);
	int cpu = task_cpu(p);

	if (!time_after(jiffies, since + timeout))
		return false;
	if (saakm_is_ready(state)) {
		if (!saakm_cpu_free_for(pol, cpu))
			return false;
		saakm_eject(pol, "stall", "task %d (%s) ready for %u ms on cpu %d without running",
			    p->pid, p->comm, jiffies_to_msecs(jiffies - since), cpu);
		return true;
	}
	/* Running, or parked by the class: not lost. Confirmed under the lock. */
	if (!*limbo && (READ_ONCE(p->saakm.flags) & SAAKM_TF_QUEUED) &&
	    !task_curr(p) && list_empty_careful(&p->saakm.core_node)) {
		get_task_struct(p);
		*limbo = p;
	}
	return false;
}

/*
 * The watchdog, from a work item every quarter timeout: look at every task
 * of the policy, a batch per lock hold (interrupts are off meanwhile), and
 * move each task looked at to the tail so the list is walked in rounds.
 * Catches a policy that starves one task while picking others, or drops a
 * runnable task; the tick catches a policy that picks nothing.
 */
static void saakm_watchdog_check(struct saakm_policy *pol)
{
	unsigned long timeout = saakm_timeout(pol), flags;
	int left = atomic_read(&pol->nr_tasks);
	struct task_struct *limbo = NULL;
	bool stalled = false;

	while (left > 0 && !stalled && READ_ONCE(pol->state) == SAAKM_POLICY_ENABLED) {
		int n;

		raw_spin_lock_irqsave(&pol->lock, flags);
		for (n = 0; n < SAAKM_SCAN_BATCH && left > 0 && !stalled; n++, left--) {
			struct task_struct *p;

			p = list_first_entry_or_null(&pol->tasks, struct task_struct,
						     saakm.policy_node);
			if (!p)
				break;
			list_move_tail(&p->saakm.policy_node, &pol->tasks);
			stalled = saakm_task_stalled(pol, p, timeout, &limbo);
		}
		raw_spin_unlock_irqrestore(&pol->lock, flags);
		cond_resched();
	}
	if (limbo) {
		saakm_check_limbo(pol, limbo, timeout);
		put_task_struct(limbo);
	}
}

/*
 * Runs in process context without RCU: the watchdog sleeps between batches.
 * saakm_mutex keeps the policy list stable.
 */
static void saakm_watchdog_workfn(struct work_struct *work)
{
	struct saakm_policy *pol;
	unsigned long period;

	mutex_lock(&saakm_mutex);
	list_for_each_entry(pol, &saakm_policies, list)
		if (READ_ONCE(pol->state) == SAAKM_POLICY_ENABLED)
			saakm_watchdog_check(pol);
	mutex_unlock(&saakm_mutex);

	period = max(msecs_to_jiffies(READ_ONCE(saakm_watchdog_timeout_ms)) / 4, 1UL);
	if (saakm_enabled())
		queue_delayed_work(system_unbound_wq, &saakm_watchdog_work, period);
}

/*
 * The class runs the tasks of an ejected policy itself until they are moved
 * away. When @cpu has none parked, look at the policy's tasks a batch at a
 * time (rotating them to the tail) and park every READY one queued on @cpu:
 * later picks then take the parked list in O(1). Returns the head of the
 * parked list, left parked (see pick_task_saakm()). rq(@cpu) locked.
 */
struct task_struct *saakm_bypass_pick(struct saakm_policy *pol, int cpu)
{
	struct list_head *parked = &per_cpu_ptr(pol->pcpu, cpu)->preempted;
	int left = atomic_read(&pol->nr_tasks), n = 0;
	struct task_struct *p;

	raw_spin_lock(&pol->lock);
	while (left-- > 0 && (list_empty(parked) || n < SAAKM_SCAN_BATCH)) {
		p = list_first_entry_or_null(&pol->tasks, struct task_struct,
					     saakm.policy_node);
		if (!p)
			break;
		list_move_tail(&p->saakm.policy_node, &pol->tasks);
		n++;
		if (saakm_is_ready(p->saakm.state) && p->saakm.cpu == cpu &&
		    task_cpu(p) == cpu && (p->saakm.flags & SAAKM_TF_QUEUED)) {
			saakm_force_state(p, SAAKM_RUNNING);
			saakm_park(p, cpu, true);
		}
	}
	raw_spin_unlock(&pol->lock);
	return list_first_entry_or_null(parked, struct task_struct, saakm.core_node);
}

/* SysRq-K: eject every policy, like SysRq-S for sched_ext. */
static void sysrq_handle_saakm_eject(u8 key)
{
	struct saakm_policy *pol;

	rcu_read_lock();
	for_each_saakm_policy(pol)
		saakm_eject(pol, "sysrq", "ejected by SysRq-K");
	rcu_read_unlock();
}

static const struct sysrq_key_op sysrq_saakm_eject_op = {
	.handler	= sysrq_handle_saakm_eject,
	.help_msg	= "eject-saakm-policies(K)",
	.action_msg	= "Ejecting all SaaKM policies",
	.enable_mask	= SYSRQ_ENABLE_RTNICE,
};

static int __init saakm_sysrq_init(void)
{
	return register_sysrq_key('K', &sysrq_saakm_eject_op);
}
late_initcall(saakm_sysrq_init);

/**
 * saakm_core_entry - open @pol's bracket on @cpu
 * @pol: the policy
 * @cpu: a CPU whose rq lock is held
 *
 * core_entry() and core_exit() alternate on each CPU, and a policy gets no
 * other per-CPU callback for a CPU outside the pair.
 */
void saakm_core_entry(struct saakm_policy *pol, int cpu)
{
	struct saakm_policy_pcpu *pc = per_cpu_ptr(pol->pcpu, cpu);

	if (pc->entered)
		return;
	pc->entered = true;
	if (pol->core_entry)
		saakm_call(pol, CORE_ENTRY, cpu, core_entry, cpu);
}

/**
 * saakm_core_exit - close @pol's bracket on @cpu
 * @pol: the policy
 * @cpu: a CPU whose rq lock is held
 */
void saakm_core_exit(struct saakm_policy *pol, int cpu)
{
	struct saakm_policy_pcpu *pc = per_cpu_ptr(pol->pcpu, cpu);

	if (!pc->entered)
		return;
	pc->entered = false;
	if (pol->core_exit)
		saakm_call(pol, CORE_EXIT, cpu, core_exit, cpu);
}

/* core_entry or core_exit on every live CPU; cpus_read_lock() held. */
static void saakm_bracket_all(struct saakm_policy *pol, bool entry)
{
	struct rq_flags rf;
	int cpu;

	for_each_online_cpu(cpu) {
		struct rq *rq = cpu_rq(cpu);

		rq_lock_irqsave(rq, &rf);
		if (!entry)
			saakm_core_exit(pol, cpu);
		else if (per_cpu(saakm_cpus, cpu).live)
			saakm_core_entry(pol, cpu);
		rq_unlock_irqrestore(rq, &rf);
	}
}

static bool policy_valid(struct saakm_policy *pol)
{
	if (!pol->new_place || !pol->unblock_place || !pol->block ||
	    !pol->schedule || !pol->terminate)
		return false;
	if ((pol->newly_idle || pol->balancing_select) && !pol->balance_pick)
		return false;
	if (pol->balancing_select && !pol->balance_ms)
		return false;
	return pol->name[0] && strnlen(pol->name, SAAKM_NAME_LEN) < SAAKM_NAME_LEN;
}

/* -EBUSY for a policy already registered, -EEXIST for a name in use. */
static int check_unique(struct saakm_policy *new)
{
	struct saakm_policy *pol;

	list_for_each_entry(pol, &saakm_policies, list) {
		if (pol == new)
			return -EBUSY;
		if (!strcmp(pol->name, new->name))
			return -EEXIST;
	}
	return 0;
}

static bool wants_balancing(struct saakm_policy *pol)
{
	return pol->newly_idle || pol->balancing_select;
}

static int saakm_policy_setup(struct saakm_policy *pol, struct module *owner)
{
	int cpu;

	pol->owner = owner;
	pol->pcpu = alloc_percpu(struct saakm_policy_pcpu);
	if (!pol->pcpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		INIT_LIST_HEAD(&per_cpu_ptr(pol->pcpu, cpu)->preempted);
	INIT_LIST_HEAD(&pol->tasks);
	raw_spin_lock_init(&pol->lock);
	atomic_set(&pol->nr_tasks, 0);
	atomic_set(&pol->nr_bad_transitions, 0);
	init_irq_work(&pol->eject_irq_work, saakm_eject_irq_workfn);
	INIT_WORK(&pol->eject_work, saakm_eject_workfn);
	pol->reason_set = false;
	pol->reason[0] = '\0';
	return 0;
}

/*
 * Publish @pol in the policy list, kept in slot order (the order in which
 * policies outrank each other), and in its slot.
 */
static void saakm_publish(struct saakm_policy *pol)
{
	struct saakm_policy *pos;
	struct list_head *before = &saakm_policies;

	list_for_each_entry(pos, &saakm_policies, list) {
		if (pos->slot > pol->slot) {
			before = &pos->list;
			break;
		}
	}
	list_add_tail_rcu(&pol->list, before);
	rcu_assign_pointer(saakm_slots[pol->slot], pol);
}

/**
 * __saakm_register_policy - register a policy (use saakm_register_policy())
 * @pol: the policy
 * @owner: the module implementing it
 *
 * The policy takes the lowest free slot: among policies with work on a
 * CPU, the one in the lowest slot runs. Without unloads that is
 * registration order; a slot freed by an unload is taken by the next
 * registration.
 *
 * Return: the new policy id (> 0), or -EINVAL, -EBUSY (@pol is registered
 * already), -EEXIST, -ENOSPC, -ENOMEM, or the error returned by @pol->init.
 */
int __saakm_register_policy(struct saakm_policy *pol, struct module *owner)
{
	int ret;

	if (!policy_valid(pol))
		return -EINVAL;

	mutex_lock(&saakm_mutex);
	ret = check_unique(pol);
	if (ret)
		goto unlock;
	if (saakm_slots_used == U64_MAX) {
		ret = -ENOSPC;
		goto unlock;
	}
	ret = saakm_policy_setup(pol, owner);
	if (ret)
		goto unlock;
	if (pol->init) {
		ret = pol->init();
		if (ret)
			goto free;
	}
	pol->slot = __ffs64(~saakm_slots_used);
	saakm_slots_used |= BIT_ULL(pol->slot);

	cpus_read_lock();
	pol->id = ++saakm_last_id;
	pol->state = SAAKM_POLICY_ENABLED;
	/* Every live CPU gets core_entry() before any other callback. */
	saakm_bracket_all(pol, true);
	saakm_publish(pol);
	static_branch_inc_cpuslocked(&saakm_active_key);
	if (wants_balancing(pol))
		static_branch_inc_cpuslocked(&saakm_balance_key);
	cpus_read_unlock();
	mutex_unlock(&saakm_mutex);

	mod_delayed_work(system_unbound_wq, &saakm_watchdog_work, 0);
	pr_info("saakm: policy %s registered with id %d\n", pol->name, pol->id);
	return pol->id;

free:
	free_percpu(pol->pcpu);
unlock:
	mutex_unlock(&saakm_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(__saakm_register_policy);

/**
 * saakm_unregister_policy - remove a policy, moving its tasks to SCHED_NORMAL
 * @pol: a registered policy
 *
 * Call from module exit. No task is lost: each one is switched back to
 * SCHED_NORMAL, keeping its nice value. An ejected policy stays bypassed
 * while its tasks leave. Returns once no CPU can be running the policy's
 * code any more, and no ejection work of it is pending.
 */
void saakm_unregister_policy(struct saakm_policy *pol)
{
	mutex_lock(&saakm_mutex);
	raw_spin_lock_irq(&pol->lock);
	cmpxchg(&pol->state, SAAKM_POLICY_ENABLED, SAAKM_POLICY_DISABLING);
	raw_spin_unlock_irq(&pol->lock);

	saakm_drain(pol);

	cpus_read_lock();
	list_del_rcu(&pol->list);
	RCU_INIT_POINTER(saakm_slots[pol->slot], NULL);
	if (wants_balancing(pol))
		static_branch_dec_cpuslocked(&saakm_balance_key);
	static_branch_dec_cpuslocked(&saakm_active_key);
	/* No callback is still running once the grace period is over. */
	synchronize_rcu();
	saakm_bracket_all(pol, false);
	cpus_read_unlock();
	mutex_unlock(&saakm_mutex);

	/* An ejection raised before the grace period may have queued work. */
	irq_work_sync(&pol->eject_irq_work);
	flush_work(&pol->eject_work);

	if (pol->exit)
		pol->exit();
	free_percpu(pol->pcpu);

	/* Only now may the slot serve another policy: no CPU can see this one. */
	mutex_lock(&saakm_mutex);
	saakm_slots_used &= ~BIT_ULL(pol->slot);
	mutex_unlock(&saakm_mutex);
	pr_info("saakm: policy %s (id %d) unregistered\n", pol->name, pol->id);
}
EXPORT_SYMBOL_GPL(saakm_unregister_policy);

/* Services for policies. */

/**
 * saakm_can_migrate - may balancing move @p to @dst_cpu now?
 * @p: a READY task, its rq locked
 * @dst_cpu: the destination CPU
 *
 * Return: true if @dst_cpu is in the task's affinity and active, and the task
 * is neither running nor in a migrate-disabled section.
 */
bool saakm_can_migrate(struct task_struct *p, int dst_cpu)
{
	return cpumask_test_cpu(dst_cpu, p->cpus_ptr) && cpu_active(dst_cpu) &&
	       !is_migration_disabled(p) && !task_on_cpu(task_rq(p), p);
}
EXPORT_SYMBOL_GPL(saakm_can_migrate);

/**
 * saakm_running_ns - CPU time used since the task last became RUNNING
 * @p: a RUNNING task, its rq locked (e.g. in tick())
 *
 * Counts only time actually spent on the CPU: while a higher class holds
 * the CPU, the clock stops, so a task preempted often still reaches the end
 * of its slice.
 *
 * Return: nanoseconds of execution since @p became RUNNING, 0 if it is not
 * running.
 */
u64 saakm_running_ns(struct task_struct *p)
{
	if (p->saakm.state != SAAKM_RUNNING)
		return 0;
	return p->se.sum_exec_runtime - p->saakm.run_start;
}
EXPORT_SYMBOL_GPL(saakm_running_ns);

/**
 * saakm_topo_mask - CPUs that share a topology level with @cpu
 * @cpu: a CPU
 * @level: SMT siblings, cluster, last-level cache, NUMA node, or all online
 *
 * The masks are the ones the scheduler's own domains are built from, and
 * follow CPU hotplug. A level the kernel is configured without returns the
 * next wider one.
 *
 * Return: a cpumask, valid until the next hotplug operation.
 */
const struct cpumask *saakm_topo_mask(int cpu, enum saakm_topo_level level)
{
	switch (level) {
#ifdef CONFIG_SCHED_SMT
	case SAAKM_TOPO_SMT:
		return cpu_smt_mask(cpu);
#endif
#ifdef CONFIG_SCHED_CLUSTER
	case SAAKM_TOPO_CLUSTER:
		return cpu_clustergroup_mask(cpu);
#endif
#ifdef CONFIG_SCHED_MC
	case SAAKM_TOPO_LLC:
		return cpu_coregroup_mask(cpu);
#endif
	case SAAKM_TOPO_NUMA:
		return cpumask_of_node(cpu_to_node(cpu));
	default:
		break;
	}
	if (level < SAAKM_TOPO_NUMA)
		return saakm_topo_mask(cpu, level + 1);
	return cpu_online_mask;
}
EXPORT_SYMBOL_GPL(saakm_topo_mask);

/**
 * saakm_topo_distance - NUMA distance between the nodes of two CPUs
 * @cpu_a: a CPU
 * @cpu_b: another CPU
 *
 * Return: the firmware's node distance (10 for the same node).
 */
int saakm_topo_distance(int cpu_a, int cpu_b)
{
	return node_distance(cpu_to_node(cpu_a), cpu_to_node(cpu_b));
}
EXPORT_SYMBOL_GPL(saakm_topo_distance);
