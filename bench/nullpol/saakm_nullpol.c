// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_nullpol: N extra, idle SaaKM policies for the multi-policy overhead
 * benchmark (bench/, "1 vs 8 policies loaded").
 *
 * Registers `count` policies named null0, null1, ... Each is a complete,
 * correct per-CPU FIFO with only the mandatory callbacks (a task that joins
 * one runs like under saakm_fifo with no slice), but the benchmark never
 * puts a task on them: they exist so that the class core has several
 * policies to walk, and the measured policy (saakm_fifo, loaded after this
 * module) is the last one.
 *
 * Parameter: count (default 7, at most NULLPOL_MAX).
 */
#include <linux/saakm.h>

#define NULLPOL_MAX 16

static unsigned int count = 7;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "number of policies to register (1..16)");

struct nullpol_cpu {
	struct saakm_rq rq[NULLPOL_MAX];
};
static DEFINE_PER_CPU(struct nullpol_cpu, nullpol_rqs);
static struct saakm_policy *nullpol[NULLPOL_MAX];
static unsigned int registered;

/* Each instance's runqueue on @cpu: saakm_priv() holds its index. */
static struct saakm_rq *rq_of(struct saakm_policy *pol, int cpu)
{
	return &per_cpu_ptr(&nullpol_rqs, cpu)->rq[(long)saakm_priv(pol)];
}

static void null_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	saakm_change_state(p, SAAKM_READY, cpu, rq_of(pol, cpu));
}

static struct task_struct *null_schedule(struct saakm_policy *pol, int cpu)
{
	struct task_struct *p = saakm_rq_first(rq_of(pol, cpu));

	if (p)
		saakm_change_state(p, SAAKM_RUNNING, cpu, NULL);
	return p;
}

static void null_block(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	saakm_change_state(p, SAAKM_BLOCKED, -1, NULL);
}

static void null_terminate(struct saakm_policy *pol, struct task_struct *p)
{
	saakm_change_state(p, SAAKM_TERMINATED, -1, NULL);
}

/* One table for every instance; only the name changes between registrations. */
static struct saakm_ops null_ops = {
	.new_place	= null_place,
	.unblock_place	= null_place,
	.schedule	= null_schedule,
	.block		= null_block,
	.terminate	= null_terminate,
};

static void __exit_policies(void)
{
	while (registered)
		saakm_unregister_policy(nullpol[--registered]);
}

static int __init nullpol_init(void)
{
	long i;
	int cpu;

	if (count < 1 || count > NULLPOL_MAX)
		return -EINVAL;
	for_each_possible_cpu(cpu)
		for (i = 0; i < count; i++)
			saakm_rq_init(&per_cpu_ptr(&nullpol_rqs, cpu)->rq[i],
				      SAAKM_RQ_FIFO, NULL, cpu);
	for (i = 0; i < count; i++) {
		snprintf(null_ops.name, sizeof(null_ops.name), "null%ld", i);
		nullpol[i] = saakm_register_policy(&null_ops, (void *)i);
		if (IS_ERR(nullpol[i])) {
			int ret = PTR_ERR(nullpol[i]);

			__exit_policies();
			return ret;
		}
		registered++;
	}
	return 0;
}

static void __exit nullpol_exit(void)
{
	__exit_policies();
}
module_init(nullpol_init);
module_exit(nullpol_exit);
MODULE_DESCRIPTION("SaaKM benchmark helper: N idle policies");
MODULE_LICENSE("GPL");
