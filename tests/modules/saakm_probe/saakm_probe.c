// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_probe: a test policy that implements every callback of the SaaKM
 * API and counts the calls it receives, so tests can prove that each event
 * fires where it should, independently of the class's own counters.
 *
 * Scheduling is per-CPU FIFO with a 10 ms slice (like saakm_fifo), tasks
 * placed by PID; idle CPUs steal from the longest queue (newly_idle) and
 * every CPU looks for work every 20 ms (balancing_select). Each task gets a
 * small allocation in new_prepare, freed in free_metadata.
 *
 * Read the counters from /sys/module/saakm_probe/parameters/counts (one
 * number per event, in the order of the "events" parameter). checkparam_attr
 * rejects an attribute blob starting with 'X' with -EINVAL; setparam_attr
 * stores the last nice value, sched_runtime and blob size it saw. With
 * unprivileged=1 any user may move their own tasks to it. Every tick also
 * kicks its own CPU with SAAKM_KICK_PREEMPT, so preempt() fires; it keeps
 * the task running. tick_kick=0 turns those kicks off; then preempt() comes
 * only from a CPU number written to the write-only "kick" parameter, which
 * kicks that CPU with SAAKM_KICK_PREEMPT once (a test can aim a kick at a
 * moment of its choosing, e.g. while an RT task holds the CPU). With
 * preempt_requeue=1, preempt() puts the task back in its runqueue
 * (SAAKM_READY_TICK) instead, so a test can see the preemption take effect.
 *
 * It also checks the core_entry/core_exit bracket: every per-CPU callback
 * must come for a CPU between its core_entry and its core_exit, core_entry
 * must not come twice without a core_exit, and core_exit must not come while
 * tasks are still READY in that CPU's runqueue. Each breach is counted in
 * /sys/module/saakm_probe/parameters/bracket_violations; the first one also
 * WARNs, naming the callback and the CPU.
 */
#include <linux/cpu.h>		/* a test module: cpus_read_lock() while "topo" is read */
#include <linux/irq_work.h>	/* a test module: WARNs out of line, see bracket_warn() */
#include <linux/saakm.h>
#include <linux/slab.h>

/* Counters: one per event of SAAKM_EVENTS() ("migrated" stays 0), then init and exit. */
enum { PROBE_INIT = SAAKM_NR_EVENTS, PROBE_EXIT, NR_COUNTS };

#define PROBE_EVENT_NAME(NAME, name)	#name ","
static char *events = SAAKM_EVENTS(PROBE_EVENT_NAME) "init,exit";
module_param(events, charp, 0444);

static unsigned long counts[NR_COUNTS];
static int nr_counts = NR_COUNTS;
module_param_array(counts, ulong, &nr_counts, 0444);

static bool unprivileged;
module_param(unprivileged, bool, 0444);

static int last_nice = 100;
module_param(last_nice, int, 0444);
static int last_attr_size = -1;
module_param(last_attr_size, int, 0444);
static unsigned long long last_runtime = 1;
module_param(last_runtime, ullong, 0444);

static bool tick_kick = true;
module_param(tick_kick, bool, 0444);
MODULE_PARM_DESC(tick_kick, "kick its own CPU with SAAKM_KICK_PREEMPT every tick (1)");

static bool preempt_requeue;
module_param(preempt_requeue, bool, 0444);
MODULE_PARM_DESC(preempt_requeue, "preempt() puts the task back in the runqueue (0)");

/* Racy increments: enough to tell zero from non-zero. */
static unsigned long bracket_violations;
module_param(bracket_violations, ulong, 0444);
MODULE_PARM_DESC(bracket_violations, "callbacks outside core_entry..core_exit");

/* twice=1: register probe's ops a second time at load; twice_err: the result. */
static bool twice;
module_param(twice, bool, 0444);
static int twice_err;
module_param(twice_err, int, 0444);

/* CPUs between core_entry and core_exit. */
static struct cpumask probe_entered;

struct probe_task {
	u64 runs;
};

static DEFINE_PER_CPU(struct saakm_rq, probe_rq);

/*
 * The registered policy, or NULL before init and after exit. Written and
 * read under kernel_param_lock(): kick_set(), which runs under it, may be
 * called before init ends or while exit runs.
 */
static struct saakm_policy *probe;

static void count(int ev)
{
	/* Racy increments are fine: tests only check for "> 0". */
	WRITE_ONCE(counts[ev], READ_ONCE(counts[ev]) + 1);
}

static struct saakm_rq *rq_of(int cpu)
{
	return per_cpu_ptr(&probe_rq, cpu);
}

/* The first breach, reported from an irq_work: callbacks may hold rq locks. */
static const char *first_breach;
static int first_breach_cpu;

static void bracket_warn(struct irq_work *work)
{
	WARN_ONCE(1, "saakm_probe: %s for cpu %d outside core_entry..core_exit\n",
		  first_breach, first_breach_cpu);
}

static DEFINE_IRQ_WORK(bracket_warn_work, bracket_warn);

static void bracket_violation(const char *what, int cpu)
{
	if (!cmpxchg(&first_breach, NULL, what)) {
		first_breach_cpu = cpu;
		irq_work_queue(&bracket_warn_work);
	}
	WRITE_ONCE(bracket_violations, READ_ONCE(bracket_violations) + 1);
}

/* A per-CPU callback for @cpu: the CPU must be between entry and exit. */
static void in_bracket(const char *what, int cpu)
{
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpumask_test_cpu(cpu, &probe_entered))
		bracket_violation(what, cpu);
}

/* Placement as in saakm_fifo: the (pid % allowed)-th allowed CPU. */
static int pick_cpu(struct task_struct *p)
{
	return cpumask_nth(p->pid % cpumask_weight(p->cpus_ptr), p->cpus_ptr);
}

static int probe_new_prepare(struct saakm_policy *pol, struct task_struct *p)
{
	count(SAAKM_EV_NEW_PREPARE);
	if (!*saakm_task_data(p))
		*saakm_task_data(p) = kzalloc(sizeof(struct probe_task), GFP_ATOMIC);
	return pick_cpu(p);
}

static void probe_new_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	count(SAAKM_EV_NEW_PLACE);
	in_bracket("new_place", cpu);
	saakm_change_state(p, SAAKM_READY, cpu, rq_of(cpu));
}

static int probe_unblock_prepare(struct saakm_policy *pol, struct task_struct *p)
{
	count(SAAKM_EV_UNBLOCK_PREPARE);
	return pick_cpu(p);
}

static void probe_unblock_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	count(SAAKM_EV_UNBLOCK_PLACE);
	in_bracket("unblock_place", cpu);
	saakm_change_state(p, SAAKM_READY, cpu, rq_of(cpu));
}

static void probe_block(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	count(SAAKM_EV_BLOCK);
	in_bracket("block", cpu);
	saakm_change_state(p, SAAKM_BLOCKED, -1, NULL);
}

static void probe_yield(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	count(SAAKM_EV_YIELD);
	in_bracket("yield", cpu);
	saakm_change_state(p, SAAKM_READY, cpu, rq_of(cpu));
}

static void probe_tick(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	count(SAAKM_EV_TICK);
	in_bracket("tick", cpu);
	if (saakm_rq_len(rq_of(cpu)) && saakm_running_ns(p) >= 10 * NSEC_PER_MSEC)
		saakm_change_state(p, SAAKM_READY_TICK, cpu, rq_of(cpu));
	else if (tick_kick)
		saakm_kick_cpu(pol, cpu, SAAKM_KICK_PREEMPT);
}

/*
 * Reached by the kick from probe_tick() or kick_set(): count, and keep the
 * task running, or with preempt_requeue put it at the tail of the queue.
 */
static void probe_preempt(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	count(SAAKM_EV_PREEMPT);
	in_bracket("preempt", cpu);
	if (preempt_requeue)
		saakm_change_state(p, SAAKM_READY_TICK, cpu, rq_of(cpu));
}

static void probe_terminate(struct saakm_policy *pol, struct task_struct *p)
{
	count(SAAKM_EV_TERMINATE);
	saakm_change_state(p, SAAKM_TERMINATED, -1, NULL);
}

static struct task_struct *probe_schedule(struct saakm_policy *pol, int cpu)
{
	struct task_struct *p = saakm_rq_first(rq_of(cpu));
	struct probe_task *pt;

	count(SAAKM_EV_SCHEDULE);
	in_bracket("schedule", cpu);
	if (!p)
		return NULL;
	saakm_change_state(p, SAAKM_RUNNING, cpu, NULL);
	pt = *saakm_task_data(p);
	if (pt)
		pt->runs++;
	return p;
}

static int longest_other(int cpu)
{
	unsigned int len, best_len = 0;
	int other, best = -1;

	/* Only CPUs it was told about: a policy names no CPU outside the bracket. */
	for_each_cpu_and(other, &probe_entered, cpu_online_mask) {
		len = saakm_rq_len(rq_of(other));
		if (other != cpu && len > best_len) {
			best = other;
			best_len = len;
		}
	}
	return best;
}

static int probe_newly_idle(struct saakm_policy *pol, int cpu)
{
	count(SAAKM_EV_NEWLY_IDLE);
	in_bracket("newly_idle", cpu);
	return longest_other(cpu);
}

static int probe_balancing_select(struct saakm_policy *pol, int cpu)
{
	count(SAAKM_EV_BALANCING_SELECT);
	in_bracket("balancing_select", cpu);
	return saakm_rq_len(rq_of(cpu)) ? -1 : longest_other(cpu);
}

static struct task_struct *probe_balance_pick(struct saakm_policy *pol, int src, int dst)
{
	struct task_struct *p;

	count(SAAKM_EV_BALANCE_PICK);
	in_bracket("balance_pick src", src);
	in_bracket("balance_pick dst", dst);
	saakm_rq_for_each(p, rq_of(src))
		if (saakm_can_migrate(p, dst))
			break;
	if (p)
		saakm_change_state(p, SAAKM_MIGRATING, -1, NULL);
	return p;
}

static void probe_enter_idle(struct saakm_policy *pol, int cpu)
{
	count(SAAKM_EV_ENTER_IDLE);
	in_bracket("enter_idle", cpu);
}

static void probe_exit_idle(struct saakm_policy *pol, int cpu)
{
	count(SAAKM_EV_EXIT_IDLE);
	in_bracket("exit_idle", cpu);
}

static void probe_core_entry(struct saakm_policy *pol, int cpu)
{
	count(SAAKM_EV_CORE_ENTRY);
	if (cpu < 0 || cpu >= nr_cpu_ids || cpumask_test_and_set_cpu(cpu, &probe_entered))
		bracket_violation("core_entry again", cpu);
}

/* rq(@cpu) locked: the CPU's runqueue must be empty by now. */
static void probe_core_exit(struct saakm_policy *pol, int cpu)
{
	count(SAAKM_EV_CORE_EXIT);
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpumask_test_and_clear_cpu(cpu, &probe_entered))
		bracket_violation("core_exit without core_entry", cpu);
	else if (saakm_rq_len(rq_of(cpu)))
		bracket_violation("core_exit with READY tasks queued", cpu);
}

static int probe_init(struct saakm_policy *pol)
{
	count(PROBE_INIT);
	pr_info("saakm_probe: init\n");
	return 0;
}

static void probe_exit(struct saakm_policy *pol)
{
	count(PROBE_EXIT);
	pr_info("saakm_probe: exit\n");
}

static void probe_free_metadata(struct saakm_policy *pol, struct task_struct *p)
{
	count(SAAKM_EV_FREE_METADATA);
	kfree(*saakm_task_data(p));
	*saakm_task_data(p) = NULL;
}

static int probe_checkparam(struct saakm_policy *pol, struct task_struct *p, const struct saakm_attr *attr)
{
	count(SAAKM_EV_CHECKPARAM_ATTR);
	if (attr->size && ((const char *)attr->data)[0] == 'X')
		return -EINVAL;
	return 0;
}

static void probe_setparam(struct saakm_policy *pol, struct task_struct *p, const struct saakm_attr *attr)
{
	count(SAAKM_EV_SETPARAM_ATTR);
	WRITE_ONCE(last_nice, attr->nice);
	WRITE_ONCE(last_attr_size, attr->size);
	WRITE_ONCE(last_runtime, attr->runtime);
}

static struct saakm_ops probe_ops = {
	.name			= "probe",
	.new_prepare		= probe_new_prepare,
	.new_place		= probe_new_place,
	.unblock_prepare	= probe_unblock_prepare,
	.unblock_place		= probe_unblock_place,
	.block			= probe_block,
	.yield			= probe_yield,
	.tick			= probe_tick,
	.preempt		= probe_preempt,
	.terminate		= probe_terminate,
	.schedule		= probe_schedule,
	.newly_idle		= probe_newly_idle,
	.enter_idle		= probe_enter_idle,
	.exit_idle		= probe_exit_idle,
	.balancing_select	= probe_balancing_select,
	.balance_pick		= probe_balance_pick,
	.core_entry		= probe_core_entry,
	.core_exit		= probe_core_exit,
	.init			= probe_init,
	.exit			= probe_exit,
	.free_metadata		= probe_free_metadata,
	.checkparam_attr	= probe_checkparam,
	.setparam_attr		= probe_setparam,
	.balance_ms		= 20,
};

/*
 * A CPU number written to the "kick" parameter: kick it with
 * SAAKM_KICK_PREEMPT. Only an online CPU is taken: the class ejects a
 * policy that kicks a CPU that does not exist, and drops a kick to an
 * offline one, which would leave a test waiting for nothing.
 */
static int kick_set(const char *val, const struct kernel_param *kp)
{
	unsigned int cpu;
	int ret = kstrtouint(val, 0, &cpu);

	if (ret)
		return ret;
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	if (!probe)
		return -ENODEV;
	saakm_kick_cpu(probe, cpu, SAAKM_KICK_PREEMPT);
	return 0;
}

static const struct kernel_param_ops kick_ops = {
	.set = kick_set,
};

module_param_cb(kick, &kick_ops, NULL, 0200);
MODULE_PARM_DESC(kick, "write a CPU number: kick it with SAAKM_KICK_PREEMPT");

/*
 * Read "topo": for each online CPU, the topology levels and LLC helpers as
 * the class offers them to policies, one line per CPU, for the tests to
 * compare with sysfs:
 *
 *   cpuN smt=L cluster=L llc=L numa=L system=L llc_id=N distance0=N
 *	llc_nr_running=N llc_idle=N
 *
 * (one line each; L a CPU list). llc_idle is saakm_idle_cpu() in the LLC,
 * looked for from CPU N, -1 if none. Hotplug waits while it is read.
 */
static int topo_get(char *buf, const struct kernel_param *kp)
{
	int cpu, n = 0;

	if (!probe)
		return -ENODEV;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		n += scnprintf(buf + n, PAGE_SIZE - n,
			       "cpu%d smt=%*pbl cluster=%*pbl llc=%*pbl numa=%*pbl system=%*pbl llc_id=%d distance0=%d llc_nr_running=%u llc_idle=%d\n",
			       cpu, cpumask_pr_args(saakm_topo_mask(cpu, SAAKM_TOPO_SMT)),
			       cpumask_pr_args(saakm_topo_mask(cpu, SAAKM_TOPO_CLUSTER)),
			       cpumask_pr_args(saakm_llc_cpus(cpu)),
			       cpumask_pr_args(saakm_topo_mask(cpu, SAAKM_TOPO_NUMA)),
			       cpumask_pr_args(saakm_topo_mask(cpu, SAAKM_TOPO_SYSTEM)),
			       saakm_llc_id(cpu), saakm_topo_distance(cpu, 0),
			       saakm_llc_nr_running(probe, cpu),
			       saakm_idle_cpu(probe, NULL, saakm_llc_cpus(cpu), cpu));
	}
	cpus_read_unlock();
	return n;
}

static const struct kernel_param_ops topo_ops = {
	.get = topo_get,
};

module_param_cb(topo, &topo_ops, NULL, 0444);
MODULE_PARM_DESC(topo, "read: each online CPU's topology levels and LLC helpers, a line each");

/* Log the topology the class exports, for the tests to compare with sysfs. */
static void log_topology(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		pr_info("saakm_probe: topo cpu%d smt=%*pbl llc=%*pbl numa=%*pbl system=%*pbl distance0=%d\n",
			cpu, cpumask_pr_args(saakm_topo_mask(cpu, SAAKM_TOPO_SMT)),
			cpumask_pr_args(saakm_topo_mask(cpu, SAAKM_TOPO_LLC)),
			cpumask_pr_args(saakm_topo_mask(cpu, SAAKM_TOPO_NUMA)),
			cpumask_pr_args(saakm_topo_mask(cpu, SAAKM_TOPO_SYSTEM)),
			saakm_topo_distance(cpu, 0));
}

static int __init saakm_probe_init(void)
{
	struct saakm_policy *pol;
	int cpu;

	log_topology();
	for_each_possible_cpu(cpu)
		saakm_rq_init(rq_of(cpu), SAAKM_RQ_FIFO, NULL, cpu);
	probe_ops.unprivileged = unprivileged;
	pol = saakm_register_policy(&probe_ops, NULL);
	if (IS_ERR(pol))
		return PTR_ERR(pol);
	if (twice) {	/* must be refused: the live one is not to be reset or doubled */
		struct saakm_policy *again = saakm_register_policy(&probe_ops, NULL);

		twice_err = PTR_ERR_OR_ZERO(again);
		if (!IS_ERR(again))
			saakm_unregister_policy(again);
	}
	kernel_param_lock(THIS_MODULE);
	probe = pol;
	kernel_param_unlock(THIS_MODULE);
	return 0;
}

static void __exit saakm_probe_exit(void)
{
	struct saakm_policy *pol;

	/* No kick_set() may use the policy once it is unregistered. */
	kernel_param_lock(THIS_MODULE);
	pol = probe;
	probe = NULL;
	kernel_param_unlock(THIS_MODULE);
	saakm_unregister_policy(pol);
	irq_work_sync(&bracket_warn_work);
}

module_init(saakm_probe_init);
module_exit(saakm_probe_exit);
MODULE_DESCRIPTION("SaaKM test policy counting every event");
MODULE_LICENSE("GPL");
