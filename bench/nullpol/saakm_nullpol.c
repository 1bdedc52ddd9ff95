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
#include <linux/module.h>
#include <linux/saakm.h>

#define NULLPOL_MAX 16

static unsigned int count = 7;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "number of policies to register (1..16)");

struct nullpol_cpu {
	struct saakm_rq rq[NULLPOL_MAX];
};
static DEFINE_PER_CPU(struct nullpol_cpu, nullpol_rqs);
static struct saakm_policy nullpol[NULLPOL_MAX];
static unsigned int registered;

static struct saakm_rq *rq_of(int i, int cpu)
{
	return &per_cpu_ptr(&nullpol_rqs, cpu)->rq[i];
}

static void null_place(int i, struct task_struct *p, int cpu)
{
	saakm_change_state(p, SAAKM_READY, cpu, rq_of(i, cpu));
}

static struct task_struct *null_schedule(int i, int cpu)
{
	struct task_struct *p = saakm_rq_first(rq_of(i, cpu));

	if (p)
		saakm_change_state(p, SAAKM_RUNNING, cpu, NULL);
	return p;
}

static void null_block(struct task_struct *p, int cpu)
{
	saakm_change_state(p, SAAKM_BLOCKED, -1, NULL);
}

static void null_terminate(struct task_struct *p)
{
	saakm_change_state(p, SAAKM_TERMINATED, -1, NULL);
}

/* The callbacks carry no policy pointer: one small set per policy index. */
#define NULLPOL_OPS(i)							\
static void null_place_##i(struct task_struct *p, int cpu)		\
{ null_place(i, p, cpu); }						\
static struct task_struct *null_schedule_##i(int cpu)			\
{ return null_schedule(i, cpu); }

NULLPOL_OPS(0) NULLPOL_OPS(1) NULLPOL_OPS(2) NULLPOL_OPS(3)
NULLPOL_OPS(4) NULLPOL_OPS(5) NULLPOL_OPS(6) NULLPOL_OPS(7)
NULLPOL_OPS(8) NULLPOL_OPS(9) NULLPOL_OPS(10) NULLPOL_OPS(11)
NULLPOL_OPS(12) NULLPOL_OPS(13) NULLPOL_OPS(14) NULLPOL_OPS(15)

#define NULLPOL_SET(i) { null_place_##i, null_schedule_##i }
static const struct {
	void (*place)(struct task_struct *p, int cpu);
	struct task_struct *(*schedule)(int cpu);
} null_ops[NULLPOL_MAX] = {
	NULLPOL_SET(0), NULLPOL_SET(1), NULLPOL_SET(2), NULLPOL_SET(3),
	NULLPOL_SET(4), NULLPOL_SET(5), NULLPOL_SET(6), NULLPOL_SET(7),
	NULLPOL_SET(8), NULLPOL_SET(9), NULLPOL_SET(10), NULLPOL_SET(11),
	NULLPOL_SET(12), NULLPOL_SET(13), NULLPOL_SET(14), NULLPOL_SET(15),
};

static void __exit_policies(void)
{
	while (registered)
		saakm_unregister_policy(&nullpol[--registered]);
}

static int __init nullpol_init(void)
{
	unsigned int i;
	int cpu, id;

	if (count < 1 || count > NULLPOL_MAX)
		return -EINVAL;
	for_each_possible_cpu(cpu)
		for (i = 0; i < count; i++)
			saakm_rq_init(rq_of(i, cpu), SAAKM_RQ_FIFO, NULL, cpu);
	for (i = 0; i < count; i++) {
		struct saakm_policy *pol = &nullpol[i];

		snprintf(pol->name, sizeof(pol->name), "null%u", i);
		pol->new_place = null_ops[i].place;
		pol->unblock_place = null_ops[i].place;
		pol->schedule = null_ops[i].schedule;
		pol->block = null_block;
		pol->terminate = null_terminate;
		id = saakm_register_policy(pol);
		if (id < 0) {
			__exit_policies();
			return id;
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
