// SPDX-License-Identifier: GPL-2.0
/*
 * Live upgrade: a new version of a policy module takes over a registered
 * policy, its id and its tasks, without a task leaving it ("Live upgrade"
 * in <linux/saakm.h>).
 *
 * The swap happens with every CPU stopped (stop_machine()). Callbacks run
 * with interrupts off, so none of the policy's can be running then, and
 * none can start: the callbacks' fast path needs no gate, and costs
 * nothing while no upgrade runs. Inside the stop, the old version exports
 * its state, the policy's ops, priv and owner change hands, and the new
 * version imports the state and adopts the old runqueues, which visits
 * their READY tasks only. The policy's other tasks are not visited unless
 * the new version left READY tasks behind.
 *
 * After the stop the old version's exit() runs at once, on a handle of its
 * own (a husk: its ops and priv, attached to nothing), so that it stops its
 * timers and frees what the new version did not take; nothing refers to
 * the old module any more. The husk stays, as a tombstone, until the old
 * module's saakm_unregister_policy(), which then does nothing else.
 *
 * Everything here runs under saakm_mutex and cpus_read_lock(), called by
 * registration (saakm_policy.c).
 */
#include <linux/stop_machine.h>
#include "saakm_call.h"
#include "saakm_eject.h"
#include "saakm_record.h"
#include "saakm_state.h"
#include "saakm_upgrade.h"

/* Replaced versions whose module has not unregistered yet; saakm_mutex. */
static LIST_HEAD(saakm_husks);

struct saakm_swap {
	struct saakm_policy	*pol;	/* the live policy */
	struct saakm_policy	*next;	/* the new version; the husk after */
	const char		*why;	/* the step that refused */
	u64			swap_ns;	/* the swap's own work, in the stop */
};

/* Exchange who runs @pol: its ops, priv and owner, with @next's. */
static void saakm_swap_owner(struct saakm_policy *pol, struct saakm_policy *next)
{
	swap(pol->ops, next->ops);
	swap(pol->priv, next->priv);
	swap(pol->owner, next->owner);
}

static unsigned int saakm_nr_ready(struct saakm_policy *pol)
{
	unsigned int n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu_ptr(pol->pcpu, cpu)->nr_ready;
	return n;
}

/*
 * READY tasks in runqueues the new version did not adopt are still in the
 * old version's: take them out, and give them to the new unblock_place()
 * on their CPU. This walks every task of @pol, but only for a new version
 * that adopts only part of the old runqueues, or none.
 */
static void saakm_place_left_behind(struct saakm_policy *pol)
{
	struct task_struct *p;

	list_for_each_entry(p, &pol->tasks, saakm.policy_node) {
		struct rq *rq = task_rq(p);
		int cpu = cpu_of(rq);

		if (!saakm_rq_left_behind(p))
			continue;
		raw_spin_rq_lock(rq);
		saakm_force_state(p, SAAKM_MIGRATING);
		__this_cpu_write(saakm_ctx.placing, rq);
		saakm_call(pol, cpu, p, unblock_place, p, cpu);
		saakm_check_placed(p, cpu, SAAKM_EV_UNBLOCK_PLACE);
		__this_cpu_write(saakm_ctx.placing, NULL);
		__this_cpu_write(saakm_ctx.kick_due, NULL);
		/* the CPU picks again when it resumes */
		resched_curr(rq);
		raw_spin_rq_unlock(rq);
	}
}

/* core_entry() of the new version, for the CPUs the old one had entered. */
static void saakm_enter_all(struct saakm_policy *pol)
{
	int cpu;

	for_each_online_cpu(cpu) {
		struct rq *rq = cpu_rq(cpu);

		if (!per_cpu_ptr(pol->pcpu, cpu)->entered)
			continue;
		raw_spin_rq_lock(rq);
		__saakm_call(pol, cpu, NULL, core_entry, cpu);
		raw_spin_rq_unlock(rq);
	}
}

/* The new version's import, with saakm_rq_adopt() allowed and counted. */
static int saakm_import(struct saakm_policy *pol, const struct saakm_upgrade *up)
{
	int ret;

	saakm_rq_import_begin();
	ret = pol->ops.upgrade_import(pol, up);
	saakm_rq_import_end();
	return ret;
}

/*
 * The swap, on one CPU while every other one spins with interrupts off.
 * Until the import succeeds, nothing of the old version has changed but
 * what its export chose to, and a refusal gives it its policy back. An
 * import that fails after adopting tasks has moved them into the new
 * module: the new version keeps the policy, ejected, so that the tasks
 * leave it safely, and the load succeeds with the reason in
 * /proc/saakm/errors.
 */
static int saakm_swap_stopped(void *arg)
{
	struct saakm_swap *sw = arg;
	struct saakm_policy *pol = sw->pol, *next = sw->next;
	struct saakm_upgrade up = { .version = pol->ops.version };
	u64 t0 = local_clock();
	int ret;

	if (READ_ONCE(pol->state) != SAAKM_POLICY_ENABLED) {
		sw->why = "the policy is ejected or going away";
		return -EBUSY;
	}
	if (pol->ops.upgrade_export) {
		ret = pol->ops.upgrade_export(pol, &up);
		if (ret) {
			sw->why = "the loaded version's upgrade_export() refused";
			return ret;
		}
	}

	saakm_swap_owner(pol, next);
	ret = saakm_import(pol, &up);
	if (ret && !saakm_rq_adopted) {
		saakm_swap_owner(pol, next);
		sw->why = "the new version's upgrade_import() refused";
		return ret;
	}
	/* Records from here on would be of the new code: replay runs one. */
	WRITE_ONCE(pol->recording, false);
	if (ret)
		saakm_eject(pol, SAAKM_EJECT_ERROR,
			    "upgrade_import() failed (%d) after adopting %u tasks",
			    ret, saakm_rq_adopted);
	saakm_enter_all(pol);
	if (saakm_rq_adopted != saakm_nr_ready(pol))
		saakm_place_left_behind(pol);
	pol->generation++;
	sw->swap_ns = local_clock() - t0;
	return 0;
}

/*
 * The old version in @husk is done: its exit(); then it waits as a
 * tombstone for its module's unregistration, unless it is built in.
 */
static void saakm_retire(struct saakm_policy *pol, struct saakm_policy *husk)
{
	husk->live = pol;
	husk->id = pol->id;
	if (husk->ops.exit)
		husk->ops.exit(husk);
	if (husk->owner)
		list_add(&husk->list, &saakm_husks);
}

/**
 * saakm_upgrade - hand a registered policy over to a new version
 * @pol: the live policy
 * @next: the new version: its ops, priv and owner, init() done; on
 *	success it holds the old version's, exited, as a tombstone until the
 *	old module unregisters (the caller frees it for a built-in version)
 *
 * Context: saakm_mutex and cpus_read_lock() held; may sleep.
 *
 * Return: 0, or the errno of the step that refused, which the kernel log
 * names; the old version then runs on as it was, unless its own export or
 * the new import called saakm_policy_error().
 */
int saakm_upgrade(struct saakm_policy *pol, struct saakm_policy *next)
{
	struct saakm_swap sw = { .pol = pol, .next = next };
	struct module *old = pol->owner;
	bool recording = READ_ONCE(pol->recording);
	u64 t0, ns;
	int ret;

	lockdep_assert_held(&saakm_mutex);
	lockdep_assert_cpus_held();
	/* Its code runs until its exit() returns. */
	if (!try_module_get(old)) {
		pr_err("saakm: upgrade of %s refused: its module is being unloaded\n",
		       pol->ops.name);
		return -EBUSY;
	}
	t0 = ktime_get_ns();
	ret = stop_machine_cpuslocked(saakm_swap_stopped, &sw, NULL);
	ns = ktime_get_ns() - t0;
	if (ret) {
		pr_err("saakm: upgrade of %s refused: %s (%d)\n", pol->ops.name,
		       sw.why, ret);
	} else {
		pol->upgrade_ns = ns;
		pol->upgrade_swap_ns = sw.swap_ns;
		if (recording) {
			saakm_record_forget(pol);
			pr_info("saakm: the recording of %s stops at its upgrade\n",
				pol->ops.name);
		}
		saakm_retire(pol, next);
		pr_info("saakm: policy %s (id %d) upgraded to generation %u: CPUs stopped for %llu ns, %llu ns of it to swap\n",
			pol->ops.name, pol->id, pol->generation, ns, sw.swap_ns);
	}
	module_put(old);
	return ret;
}

/**
 * saakm_husk_take - the tombstone of a version a newer one replaced
 * @pol: the handle the module's saakm_register_policy() returned; only
 *	compared, as the live policy may be gone
 * @owner: the module unregistering
 *
 * Context: saakm_mutex held.
 *
 * Return: the husk, off the list, to be freed; or NULL if @owner still
 * runs @pol.
 */
struct saakm_policy *saakm_husk_take(struct saakm_policy *pol, struct module *owner)
{
	struct saakm_policy *husk;

	lockdep_assert_held(&saakm_mutex);
	list_for_each_entry(husk, &saakm_husks, list) {
		if (husk->live == pol && husk->owner == owner) {
			list_del(&husk->list);
			return husk;
		}
	}
	return NULL;
}
