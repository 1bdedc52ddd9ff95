// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM policies: registration, tasks joining and leaving a policy, CPUs
 * coming and going, and the small services the API exports. The task state
 * machine is in saakm_state.c; what happens when a policy fails, in
 * saakm_safety.c and saakm_eject.c.
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
 */
#include "saakm_call.h"
#include "saakm_eject.h"
#include "saakm_policy.h"
#include "saakm_safety.h"
#include "saakm_state.h"
#include "saakm_upgrade.h"

LIST_HEAD(saakm_policies);
struct saakm_policy __rcu *saakm_slots[SAAKM_MAX_POLICIES];
DEFINE_PER_CPU(u64, saakm_work);
DEFINE_MUTEX(saakm_mutex);
static int saakm_last_id;
static u64 saakm_slots_used;	/* under saakm_mutex */

DEFINE_STATIC_KEY_FALSE(saakm_active_key);
DEFINE_STATIC_KEY_FALSE(saakm_balance_key);
DEFINE_STATIC_KEY_FALSE(saakm_idle_key);
atomic_t saakm_nr_tasks = ATOMIC_INIT(0);

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
	/* Stamped before the watchdog can see it in @pol's list. */
	p->saakm.ready_at = saakm_wait_clock(pol, task_cpu(p));
	/* replay learns of the task, and of a state other than NOT_QUEUED */
	saakm_rec(pol, SAAKM_REC_FORCE, 0, task_cpu(p), p, state, -1, SAAKM_NOT_QUEUED);
	raw_spin_lock(&pol->lock);
	list_add_tail(&p->saakm.policy_node, &pol->tasks);
	atomic_inc(&pol->nr_tasks);
	atomic_inc(&saakm_nr_tasks);
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
	if (p->saakm.state != SAAKM_TERMINATED) {
		saakm_call(pol, cpu, p, terminate, p);
		if (p->saakm.state != saakm_left_state(SAAKM_EV_TERMINATE)) {
			saakm_eject(pol, SAAKM_EJECT_CALLBACK, SAAKM_ERR_LEFT_STATE,
				    saakm_event_name(SAAKM_EV_TERMINATE), p->pid,
				    saakm_state_name(p->saakm.state));
			saakm_force_state(p, SAAKM_TERMINATED);
		}
	}
	__saakm_call(pol, cpu, p, free_metadata, p);
	p->saakm.data = NULL;

	raw_spin_lock(&pol->lock);
	list_del_init(&p->saakm.policy_node);
	raw_spin_unlock(&pol->lock);
	WRITE_ONCE(p->saakm.policy, NULL);
	atomic_dec(&pol->nr_tasks);
	atomic_dec(&saakm_nr_tasks);
}

/*
 * new_prepare() for a forked task, here rather than in select_task_rq():
 * the core skips that hook for a task bound to one CPU or with migration
 * disabled, and the policy's per-task data would then be missing. The
 * answer is kept in p->saakm.cpu for select_task_rq_saakm().
 */
static void saakm_fork_prepare(struct task_struct *p, struct saakm_policy *pol)
{
	int cpu = saakm_call_ret(pol, task_cpu(p), p, task_cpu(p), new_prepare, p);

	if (unlikely(!saakm_cpu_ok(p, cpu, nr_cpu_ids))) {
		saakm_eject(pol, SAAKM_EJECT_WRONG_CPU, SAAKM_ERR_OUTSIDE_AFFINITY,
			    cpu, p->pid);
		cpu = task_cpu(p);
	}
	p->saakm.cpu = cpu;
}

/*
 * A child keeps its parent's sched_runtime, as the fair class's child keeps
 * its parent's custom slice; the policy learns it through setparam_attr().
 */
static void saakm_fork_attr(struct task_struct *p, struct saakm_policy *pol)
{
	struct saakm_attr attr = { .nice = task_nice(p) };

	attr.runtime = p->saakm.runtime = current->saakm.runtime;
	if (attr.runtime)
		saakm_call(pol, task_cpu(p), p, setparam_attr, p, &attr);
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
		saakm_fork_attr(p, pol);
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
	sattr->runtime = attr->sched_runtime;
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
	fill_attr(&sattr, attr);
	return saakm_call_ret(pol, task_cpu(p), p, 0, checkparam_attr, p, &sattr);
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
	ret = !pol || !pol->ops.unprivileged;
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
 * Return: true if the policy, the nice value, the slice request
 * (sched_runtime) or the policy blob changes.
 */
bool saakm_attr_changed(struct task_struct *p, const struct sched_attr *attr)
{
	return attr_policy(p, attr) != p->saakm.policy ||
	       attr->sched_nice != task_nice(p) || attr->sched_saakm_attr_size ||
	       attr->sched_runtime != p->saakm.runtime;
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
		saakm_call_ret(pol, task_cpu(p), p, 0, new_prepare, p);
	}
	fill_attr(&sattr, attr);
	p->saakm.runtime = sattr.runtime;
	saakm_call(pol, task_cpu(p), p, setparam_attr, p, &sattr);
}

/**
 * saakm_getparams - report a task's policy id and runtime to sched_getattr()
 * @p: the task
 * @attr: attributes being returned to user space
 *
 * sched_runtime is what the task asked for (0: none), not the fair
 * class's slice, which a SaaKM task does not use.
 */
void saakm_getparams(struct task_struct *p, struct sched_attr *attr)
{
	struct saakm_policy *pol;

	attr->sched_runtime = p->saakm.runtime;
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

/* Registration. */

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
	__saakm_call(pol, cpu, NULL, core_entry, cpu);
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
	__saakm_call(pol, cpu, NULL, core_exit, cpu);
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

/* The registered policy named @name, or NULL; saakm_mutex held. */
static struct saakm_policy *saakm_find_name(const char *name)
{
	struct saakm_policy *pol;

	list_for_each_entry(pol, &saakm_policies, list)
		if (!strcmp(pol->ops.name, name))
			return pol;
	return NULL;
}

static bool wants_balancing(struct saakm_policy *pol)
{
	return pol->ops.newly_idle || pol->ops.balancing_select;
}

static bool wants_idle(struct saakm_policy *pol)
{
	return pol->ops.enter_idle || pol->ops.exit_idle;
}

/* Count @pol's callbacks in the keys that enable them; cpus_read_lock(). */
static void saakm_keys_get(struct saakm_policy *pol)
{
	if (wants_balancing(pol))
		static_branch_inc_cpuslocked(&saakm_balance_key);
	if (wants_idle(pol))
		static_branch_inc_cpuslocked(&saakm_idle_key);
}

static void saakm_keys_put(struct saakm_policy *pol)
{
	if (wants_balancing(pol))
		static_branch_dec_cpuslocked(&saakm_balance_key);
	if (wants_idle(pol))
		static_branch_dec_cpuslocked(&saakm_idle_key);
}

static struct saakm_policy *saakm_policy_alloc(const struct saakm_ops *ops, void *priv,
					       struct module *owner)
{
	struct saakm_policy *pol;
	int cpu;

	pol = kzalloc(sizeof(*pol), GFP_KERNEL);
	if (!pol)
		return NULL;
	pol->pcpu = alloc_percpu(struct saakm_policy_pcpu);
	if (!pol->pcpu) {
		kfree(pol);
		return NULL;
	}
	pol->ops = *ops;
	pol->priv = priv;
	pol->owner = owner;
	for_each_possible_cpu(cpu)
		INIT_LIST_HEAD(&per_cpu_ptr(pol->pcpu, cpu)->preempted);
	INIT_LIST_HEAD(&pol->tasks);
	raw_spin_lock_init(&pol->lock);
	saakm_safety_init(pol);
	return pol;
}

static void saakm_policy_free(struct saakm_policy *pol)
{
	free_percpu(pol->pcpu);
	kfree(pol);
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

/* Under saakm_mutex: take the lowest free slot, call init, go live. */
static int saakm_enable(struct saakm_policy *pol)
{
	int ret;

	if (saakm_find_name(pol->ops.name))
		return -EEXIST;
	if (saakm_slots_used == U64_MAX)
		return -ENOSPC;
	if (pol->ops.init) {
		ret = pol->ops.init(pol);
		if (ret)
			return ret;
	}
	pol->slot = __ffs64(~saakm_slots_used);
	saakm_slots_used |= BIT_ULL(pol->slot);

	cpus_read_lock();
	pol->id = ++saakm_last_id;
	pol->state = SAAKM_POLICY_ENABLED;
	/* Every live CPU gets core_entry() before any other callback. */
	saakm_bracket_all(pol, true);
	saakm_publish(pol);
	if (!static_key_enabled(&saakm_active_key))
		WRITE_ONCE(saakm_idle_epoch, saakm_idle_epoch + 1);
	static_branch_inc_cpuslocked(&saakm_active_key);
	saakm_keys_get(pol);
	cpus_read_unlock();
	return 0;
}

/*
 * Under saakm_mutex: the new version @next takes over @live. Its init()
 * and, if the upgrade is refused, its exit() get @next, whose saakm_priv()
 * is the new version's and whose id is the live one's. The keys of @next's
 * callbacks are taken first; after the upgrade @next holds the version
 * that does not run, whichever that is, and its keys are dropped.
 */
static int saakm_replace(struct saakm_policy *live, struct saakm_policy *next)
{
	int ret;

	if (READ_ONCE(live->state) != SAAKM_POLICY_ENABLED) {
		pr_err("saakm: upgrade of %s refused: the policy is ejected or going away\n",
		       live->ops.name);
		return -EBUSY;
	}
	next->id = live->id;
	if (next->ops.init) {
		ret = next->ops.init(next);
		if (ret)
			return ret;
	}
	cpus_read_lock();
	saakm_keys_get(next);
	ret = saakm_upgrade(live, next);
	saakm_keys_put(next);
	cpus_read_unlock();
	if (ret && next->ops.exit)
		next->ops.exit(next);
	/* a built-in old version leaves no tombstone */
	if (!ret && !next->owner)
		saakm_policy_free(next);
	return ret;
}

/**
 * __saakm_register_policy - register a policy (use saakm_register_policy())
 * @ops: the callbacks and settings, copied
 * @priv: returned by saakm_priv() to the callbacks
 * @owner: the module implementing them
 *
 * The policy takes the lowest free slot: among policies with work on a
 * CPU, the one in the lowest slot runs. Without unloads that is
 * registration order; a slot freed by an unload is taken by the next
 * registration. With @ops->upgrade and a policy of that name registered,
 * @ops take that policy over instead, slot and all.
 *
 * Context: process context, may sleep.
 * Return: the new or upgraded policy, or ERR_PTR(-EINVAL, -EEXIST, -ENOSPC,
 * -ENOMEM, -EBUSY, or the error returned by @ops->init or an upgrade
 * callback).
 */
struct saakm_policy *__saakm_register_policy(const struct saakm_ops *ops, void *priv,
					     struct module *owner)
{
	struct saakm_policy *pol, *live;
	int ret;

	if (!saakm_ops_valid(ops))
		return ERR_PTR(-EINVAL);
	pol = saakm_policy_alloc(ops, priv, owner);
	if (!pol)
		return ERR_PTR(-ENOMEM);

	mutex_lock(&saakm_mutex);
	live = ops->upgrade ? saakm_find_name(ops->name) : NULL;
	ret = live ? saakm_replace(live, pol) : saakm_enable(pol);
	mutex_unlock(&saakm_mutex);
	if (ret) {
		saakm_policy_free(pol);
		return ERR_PTR(ret);
	}
	/* after an upgrade, @pol held the old version: see saakm_replace() */
	if (live)
		return live;
	saakm_watchdog_kick();
	pr_info("saakm: policy %s registered with id %d\n", pol->ops.name, pol->id);
	return pol;
}
EXPORT_SYMBOL_GPL(__saakm_register_policy);

/**
 * __saakm_unregister_policy - remove a policy (use saakm_unregister_policy())
 * @pol: a policy __saakm_register_policy() returned to @owner
 * @owner: the module unregistering it
 *
 * Context: process context, may sleep.
 */
void __saakm_unregister_policy(struct saakm_policy *pol, struct module *owner)
{
	struct saakm_policy *husk;
	int slot;

	mutex_lock(&saakm_mutex);
	/* A newer version took the policy over, and this one has exited. */
	husk = saakm_husk_take(pol, owner);
	if (husk || WARN_ON_ONCE(pol->owner != owner)) {
		mutex_unlock(&saakm_mutex);
		if (husk)
			saakm_policy_free(husk);
		return;
	}
	slot = pol->slot;
	raw_spin_lock_irq(&pol->lock);
	cmpxchg(&pol->state, SAAKM_POLICY_ENABLED, SAAKM_POLICY_DISABLING);
	raw_spin_unlock_irq(&pol->lock);

	saakm_drain(pol);

	cpus_read_lock();
	list_del_rcu(&pol->list);
	RCU_INIT_POINTER(saakm_slots[slot], NULL);
	saakm_keys_put(pol);
	static_branch_dec_cpuslocked(&saakm_active_key);
	/* No callback is still running once the grace period is over. */
	synchronize_rcu();
	saakm_bracket_all(pol, false);
	cpus_read_unlock();
	saakm_record_forget(pol);
	mutex_unlock(&saakm_mutex);

	/* An ejection raised before the grace period may have queued work. */
	irq_work_sync(&pol->eject_irq_work);
	flush_work(&pol->eject_work);

	if (pol->ops.exit)
		pol->ops.exit(pol);
	pr_info("saakm: policy %s (id %d) unregistered\n", pol->ops.name, pol->id);
	saakm_policy_free(pol);

	/* Only now may the slot serve another policy: no CPU can see this one. */
	mutex_lock(&saakm_mutex);
	saakm_slots_used &= ~BIT_ULL(slot);
	mutex_unlock(&saakm_mutex);
}
EXPORT_SYMBOL_GPL(__saakm_unregister_policy);

/**
 * saakm_policy_id - the id tasks use to join a policy
 * @pol: a registered policy
 *
 * Return: the id, as shown in /proc/saakm/policies and passed in
 * sched_attr.sched_saakm_id.
 */
int saakm_policy_id(const struct saakm_policy *pol)
{
	return pol->id;
}
EXPORT_SYMBOL_GPL(saakm_policy_id);

/**
 * saakm_priv - the pointer given to saakm_register_policy()
 * @pol: a registered policy
 *
 * Return: @priv of the registration, to tell instances apart.
 */
void *saakm_priv(const struct saakm_policy *pol)
{
	return pol->priv;
}
EXPORT_SYMBOL_GPL(saakm_priv);
