/* SPDX-License-Identifier: GPL-2.0 */
/*
 * upfifo: a per-CPU FIFO policy that can be upgraded live, built as two
 * versions (saakm_upfifo1.ko, saakm_upfifo2.ko) from this one body, so
 * that tests can upgrade back and forth between them while tasks run.
 *
 * Both versions register the policy "upfifo" with .upgrade set: the first
 * one loaded registers it, and each later one takes it over. What is
 * handed over, and checked:
 *
 * - the per-CPU runqueues, adopted in the stop (their tasks keep their
 *   order), unless adopt=0, when the class gives the READY tasks to the
 *   new version's unblock_place() instead;
 * - the count of picks over all tasks (picks, a read-only parameter), which
 *   must never go back;
 * - each task's data, a pick counter and a tag made from its pid: a task
 *   that reaches a callback without it, or with another task's, ejects
 *   the policy, which is how a test sees data lost in an upgrade.
 *
 * Test knobs: format=N declares another format than UPFIFO_VERSION, which
 * the other version cannot read (only formats 1 and 2 are); import_fail=1
 * makes the import fail; eject=1 (at run time) makes the next tick eject
 * the policy; refuse=PID (at run time) refuses that task when it asks to
 * join, with -EPERM.
 */
#include <linux/saakm.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#define UPFIFO_TAG	0x5aa7f1f0u

static unsigned int format = UPFIFO_VERSION;
module_param(format, uint, 0444);
MODULE_PARM_DESC(format, "format of the state handed to the next version");
static bool import_fail;
module_param(import_fail, bool, 0444);
MODULE_PARM_DESC(import_fail, "refuse every upgrade with -ENOMEM");
static bool adopt = true;
module_param(adopt, bool, 0444);
MODULE_PARM_DESC(adopt, "adopt the old version's runqueues (0: let the class place the tasks)");
static bool eject;
module_param(eject, bool, 0644);
MODULE_PARM_DESC(eject, "eject the policy at the next tick");
static int refuse;
module_param(refuse, int, 0644);
MODULE_PARM_DESC(refuse, "refuse this pid when it asks to join (0: none)");
/* Picks: the count the last version handed over, and each CPU's since. */
static u64 picks_base;
static DEFINE_PER_CPU(u64, picks_cpu);

static u64 picks(void)
{
	u64 sum = picks_base;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(&picks_cpu, cpu));
	return sum;
}

static int picks_get(char *buf, const struct kernel_param *kp)
{
	/* a u64 and a newline fit in 32 bytes of the page-sized buffer */
	return scnprintf(buf, 32, "%llu\n", (unsigned long long)picks());
}

static const struct kernel_param_ops picks_ops = { .get = picks_get };
module_param_cb(picks, &picks_ops, NULL, 0444);
MODULE_PARM_DESC(picks, "picks of all tasks, carried over upgrades");

static DEFINE_PER_CPU(struct saakm_rq, upfifo_rq);
static struct saakm_policy *upfifo;

/* Per-task data: both versions use this layout. */
struct upfifo_task {
	u32	tag;
	u64	picks;
};

/* What a version hands to the next one: formats 1 and 2 are this. */
struct upfifo_export {
	struct saakm_rq __percpu	*rqs;
	u64				picks;
};

static struct upfifo_export exported;

static struct saakm_rq *rq_of(int cpu)
{
	return per_cpu_ptr(&upfifo_rq, cpu);
}

/* @p's data, or NULL after ejecting the policy if it is missing or wrong. */
static struct upfifo_task *task_of(struct saakm_policy *pol, struct task_struct *p)
{
	struct upfifo_task *t = *saakm_task_data(p);

	if (!t || t->tag != (UPFIFO_TAG ^ p->pid)) {
		saakm_policy_error(pol, "task %d has %s data", p->pid, t ? "another task's" : "no");
		return NULL;
	}
	return t;
}

static int up_new_prepare(struct saakm_policy *pol, struct task_struct *p)
{
	struct upfifo_task *t = kzalloc(sizeof(*t), GFP_ATOMIC);

	if (!t)
		saakm_policy_error(pol, "no memory for task %d", p->pid);
	else
		t->tag = UPFIFO_TAG ^ p->pid;
	*saakm_task_data(p) = t;
	return task_cpu(p);
}

static int up_unblock_prepare(struct saakm_policy *pol, struct task_struct *p)
{
	return task_cpu(p);
}

static void up_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	saakm_change_state(p, SAAKM_READY, cpu, rq_of(cpu));
}

static struct task_struct *up_schedule(struct saakm_policy *pol, int cpu)
{
	struct task_struct *p = saakm_rq_first(rq_of(cpu));
	struct upfifo_task *t;

	if (!p)
		return NULL;
	saakm_change_state(p, SAAKM_RUNNING, cpu, NULL);
	t = task_of(pol, p);
	if (t)
		t->picks++;
	/* rq(cpu) is held: this CPU's count has one writer */
	WRITE_ONCE(*per_cpu_ptr(&picks_cpu, cpu), *per_cpu_ptr(&picks_cpu, cpu) + 1);
	return p;
}

static void up_block(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	saakm_change_state(p, SAAKM_BLOCKED, -1, NULL);
}

static void up_tick(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	if (READ_ONCE(eject)) {
		WRITE_ONCE(eject, false);
		saakm_policy_error(pol, "ejected on request (eject=1)");
		return;
	}
	if (saakm_rq_len(rq_of(cpu)) &&
	    saakm_running_ns(p) >= UPFIFO_SLICE_MS * NSEC_PER_MSEC)
		saakm_change_state(p, SAAKM_READY_TICK, cpu, rq_of(cpu));
}

static void up_terminate(struct saakm_policy *pol, struct task_struct *p)
{
	saakm_change_state(p, SAAKM_TERMINATED, -1, NULL);
}

static int up_checkparam(struct saakm_policy *pol, struct task_struct *p,
			 const struct saakm_attr *attr)
{
	int pid = READ_ONCE(refuse);

	return pid && p->pid == pid ? -EPERM : 0;
}

static void up_free_metadata(struct saakm_policy *pol, struct task_struct *p)
{
	kfree(*saakm_task_data(p));
	*saakm_task_data(p) = NULL;
}

/* Hand over: where the runqueues are, and the count. Nothing is torn down. */
static int up_export(struct saakm_policy *pol, struct saakm_upgrade *up)
{
	exported.rqs = &upfifo_rq;
	exported.picks = picks();
	up->state = &exported;
	return 0;
}

/* Take over, refusing a format this version cannot read before anything. */
static int up_import(struct saakm_policy *pol, const struct saakm_upgrade *up)
{
	const struct upfifo_export *old = up->state;
	int cpu;

	if (import_fail)
		return -ENOMEM;
	if (up->version < 1 || up->version > 2 || !old)
		return -EPROTO;
	if (adopt)
		for_each_possible_cpu(cpu)
			saakm_rq_adopt(rq_of(cpu), per_cpu_ptr(old->rqs, cpu));
	picks_base = old->picks;
	return 0;
}

static struct saakm_ops upfifo_ops = {
	.name			= "upfifo",
	.new_prepare		= up_new_prepare,
	.new_place		= up_place,
	.unblock_prepare	= up_unblock_prepare,
	.unblock_place		= up_place,
	.block			= up_block,
	.yield			= up_place,
	.tick			= up_tick,
	.terminate		= up_terminate,
	.schedule		= up_schedule,
	.free_metadata		= up_free_metadata,
	.checkparam_attr	= up_checkparam,
	.upgrade_export		= up_export,
	.upgrade_import		= up_import,
	.upgrade		= true,
	.version		= UPFIFO_VERSION,
};

static int __init upfifo_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		saakm_rq_init(rq_of(cpu), SAAKM_RQ_FIFO, NULL, cpu);
	upfifo_ops.version = format;
	upfifo = saakm_register_policy(&upfifo_ops, NULL);
	return PTR_ERR_OR_ZERO(upfifo);
}

static void __exit upfifo_exit(void)
{
	saakm_unregister_policy(upfifo);
}
module_init(upfifo_init);
module_exit(upfifo_exit);
MODULE_DESCRIPTION("SaaKM live-upgrade test policy");
MODULE_LICENSE("GPL");
