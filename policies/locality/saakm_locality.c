// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_locality: keep tasks near their caches; round robin on each CPU.
 *
 * A task that wakes up goes back to the CPU it last ran on if that CPU is
 * idle: its cache is warmest there. Else to an idle CPU behind the same
 * last-level cache (LLC), which may still hold its data; else to an idle
 * CPU of the same NUMA node, whose memory is still local; else to any idle
 * CPU; and when none idles, to the least loaded CPU of its own LLC, where
 * it waits for its turn rather than lose its cache. A new task is placed
 * by the same rule, starting from its parent's CPU.
 *
 * Every CPU has one FIFO runqueue, served round robin: the running task
 * goes to the tail after slice_ms when others wait, so none waits for ever.
 *
 * Balancing moves a task as short a way as the load allows: a CPU that
 * goes idle, and every balance_ms a lightly loaded one, pulls a waiting
 * task from the busiest CPU of its own LLC, then of its node, then of the
 * machine. A busy CPU with tasks waiting kicks the nearest idle CPU its
 * first waiting task may use, which then pulls: an idle CPU may not tick,
 * and would not balance by itself.
 *
 * Good at: machines with several LLCs or NUMA nodes, and tasks that sleep
 * and wake often (pipes, producer and consumer, thread pools): they stay
 * near their data. Bad at: shares by weight (nice is ignored); the cost of
 * a wakeup when its LLC is full (it looks at the node, then at every CPU);
 * a CPU whose waiting tasks may not move (affinity) still looks busiest to
 * its neighbours, which then pull nothing from elsewhere at that balance.
 *
 * Parameters: slice_ms (1-1000, default 10), balance_ms (1-1000, default
 * 20; 0: no periodic balancing, only CPUs going idle or kicked pull).
 */
#include <linux/saakm.h>

SAAKM_PARAM_UINT(slice_ms, 10, 1, 1000, 0644, "time slice in ms when others wait");
SAAKM_PARAM_UINT_OFF(balance_ms, 20, 1, 1000, 0444, "period of balancing, ms");

/*
 * Per CPU, under rq(cpu). Other CPUs read nr without that lock, as a hint,
 * through saakm_read_cpu(), which records it so that replay serves it back.
 */
struct loc_cpu {
	struct saakm_rq rq;	/* waiting tasks, in round robin order */
	unsigned int nr;	/* our runnable tasks here: waiting and running */
};

static DEFINE_PER_CPU(struct loc_cpu, loc_cpus);
static struct cpumask loc_idle;		/* CPUs running their idle task */
static struct saakm_policy *loc;

static struct loc_cpu *loc_cpu(int cpu)
{
	return per_cpu_ptr(&loc_cpus, cpu);
}

/* Another CPU's load, read unlocked: through saakm_read_cpu(). */
static unsigned int nr_of(struct saakm_policy *pol, int cpu)
{
	return saakm_read_cpu(pol, cpu, READ_ONCE(loc_cpu(cpu)->nr));
}

/*
 * The levels a task may move across, nearest first: SAAKM_TOPO_LLC,
 * SAAKM_TOPO_NUMA, SAAKM_TOPO_SYSTEM (one after the other in the enum).
 */
#define for_each_level(level) \
	for ((level) = SAAKM_TOPO_LLC; (level) <= SAAKM_TOPO_SYSTEM; (level)++)

/*
 * The CPU whose cache a task comes back to: the one it last ran on (for a
 * new task, its parent's). When that CPU went offline, its LLC went with
 * it: the first online CPU the task may use stands in.
 */
static int home_cpu(struct task_struct *p)
{
	int cpu = task_cpu(p);

	if (cpu_online(cpu))
		return cpu;
	cpu = cpumask_first_and(p->cpus_ptr, cpu_online_mask);
	return cpu < nr_cpu_ids ? cpu : cpumask_first(cpu_online_mask);
}

/*
 * No CPU idles: the least loaded CPU the task may use, in @home's LLC if
 * it may use one there, else in its node, else anywhere. @home wins a tie:
 * its cache is the warmest.
 */
static int least_loaded(struct saakm_policy *pol, struct task_struct *p, int home)
{
	enum saakm_topo_level level;
	const struct cpumask *mask;
	unsigned int nr, best_nr = 0;
	int cpu, best = -1;

	for_each_level(level) {
		mask = saakm_topo_mask(home, level);
		for_each_cpu_and(cpu, mask, p->cpus_ptr) {
			nr = nr_of(pol, cpu);
			if (best < 0 || nr < best_nr || (nr == best_nr && cpu == home)) {
				best = cpu;
				best_nr = nr;
			}
		}
		if (best >= 0)
			return best;
	}
	return cpumask_any(p->cpus_ptr);	/* none online: the class falls back */
}

/*
 * new_prepare and unblock_prepare: the CPU @p starts or wakes up on. Each
 * idle search starts at @home, so @home itself is the first CPU tried,
 * then the rest of its LLC, of its node, of the machine.
 */
static int loc_select_cpu(struct saakm_policy *pol, struct task_struct *p)
{
	enum saakm_topo_level level;
	int home = home_cpu(p), cpu;

	/*
	 * HINTS PLUG IN HERE, and only here. Without hints every task follows
	 * its own cache, outwards from @home. A hint acts before the search:
	 * it moves @home (to the waker's CPU, or into its group's LLC), skips
	 * the LLC level (to spread new tasks), or returns @home at once (to
	 * hold a task on its CPU, idle or not).
	 */
	for_each_level(level) {
		cpu = saakm_idle_cpu(pol, p, saakm_topo_mask(home, level), home);
		if (cpu >= 0)
			return cpu;
	}
	return least_loaded(pol, p, home);
}

/* A task created, woken up or moved here: counted, at the tail. */
static void loc_place(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	WRITE_ONCE(loc_cpu(cpu)->nr, loc_cpu(cpu)->nr + 1);
	saakm_change_state(p, SAAKM_READY, cpu, &loc_cpu(cpu)->rq);
}

/* @p stops being runnable on @cpu (it sleeps, leaves, or moves): uncounted. */
static void loc_leave(struct task_struct *p, int cpu, enum saakm_task_state state)
{
	WRITE_ONCE(loc_cpu(cpu)->nr, loc_cpu(cpu)->nr - 1);
	saakm_change_state(p, state, -1, NULL);
}

static void loc_block(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	loc_leave(p, cpu, SAAKM_BLOCKED);
}

/* Only a runnable task is counted, on the CPU where it was placed. */
static void loc_terminate(struct saakm_policy *pol, struct task_struct *p)
{
	enum saakm_task_state state = saakm_task_state(p);

	if (state == SAAKM_READY || state == SAAKM_READY_TICK || state == SAAKM_RUNNING)
		loc_leave(p, saakm_task_cpu(p), SAAKM_TERMINATED);
	else
		saakm_change_state(p, SAAKM_TERMINATED, -1, NULL);
}

static void loc_yield(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	saakm_change_state(p, SAAKM_READY, cpu, &loc_cpu(cpu)->rq);
}

/*
 * A CPU that runs a task is not idle, even if it never said it idled: one
 * busy with another class when the policy loaded comes here without
 * exit_idle().
 */
static void loc_busy(int cpu)
{
	if (unlikely(cpumask_test_cpu(cpu, &loc_idle)))
		cpumask_clear_cpu(cpu, &loc_idle);
}

static struct task_struct *loc_schedule(struct saakm_policy *pol, int cpu)
{
	struct task_struct *p = saakm_rq_first(&loc_cpu(cpu)->rq);

	loc_busy(cpu);
	if (p)
		saakm_change_state(p, SAAKM_RUNNING, cpu, NULL);
	return p;
}

/*
 * @p waits on @cpu: wake the nearest idle CPU it may use, whose newly_idle()
 * then pulls. loc_idle is read without saakm_read_cpu(): it only picks a
 * CPU to kick, which replay does not check.
 */
static void kick_idle(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	enum saakm_topo_level level;
	const struct cpumask *mask;
	int idle;

	for_each_level(level) {
		mask = saakm_topo_mask(cpu, level);
		for_each_cpu_and(idle, &loc_idle, mask) {
			if (cpumask_test_cpu(idle, p->cpus_ptr)) {
				saakm_kick_cpu(pol, idle, 0);
				return;
			}
		}
	}
}

/* Round robin among the tasks of one CPU, only when someone is waiting. */
static void loc_tick(struct saakm_policy *pol, struct task_struct *p, int cpu)
{
	u64 slice_ns = (u64)READ_ONCE(slice_ms) * NSEC_PER_MSEC;
	struct task_struct *first = saakm_rq_first(&loc_cpu(cpu)->rq);

	loc_busy(cpu);
	if (!first)
		return;
	kick_idle(pol, first, cpu);
	if (saakm_running_ns(p) >= slice_ns)
		saakm_change_state(p, SAAKM_READY_TICK, cpu, &loc_cpu(cpu)->rq);
}

/*
 * newly_idle and balancing_select: the CPU @cpu pulls from, or -1. The
 * busiest of @cpu's LLC, else of its node, else of the machine; busiest
 * only if it has at least two tasks more than @cpu, so that one task
 * moved evens the two CPUs rather than turning the imbalance around:
 * tasks do not bounce. The counts are hints: balance_pick() checks again.
 */
static int loc_busiest(struct saakm_policy *pol, int cpu)
{
	unsigned int max, nr, mine = nr_of(pol, cpu);
	enum saakm_topo_level level;
	const struct cpumask *mask;
	int other, best = -1;

	for_each_level(level) {
		mask = saakm_topo_mask(cpu, level);
		max = mine + 1;
		for_each_cpu(other, mask) {
			nr = other == cpu ? 0 : nr_of(pol, other);
			if (nr > max) {
				best = other;
				max = nr;
			}
		}
		if (best >= 0)
			return best;
	}
	return -1;
}

/*
 * Both CPUs locked: hand over the task that has waited longest (its cache
 * is the coldest) among those that may run on @dst, if @src still has two
 * tasks more than @dst.
 */
static struct task_struct *loc_balance_pick(struct saakm_policy *pol, int src, int dst)
{
	struct task_struct *p;

	if (loc_cpu(src)->nr < loc_cpu(dst)->nr + 2)
		return NULL;
	saakm_rq_for_each(p, &loc_cpu(src)->rq)
		if (saakm_can_migrate(p, dst))
			break;
	if (p)
		loc_leave(p, src, SAAKM_MIGRATING);
	return p;
}

/* Also core_entry: a CPU counts as idle until it runs a task. */
static void loc_enter_idle(struct saakm_policy *pol, int cpu)
{
	cpumask_set_cpu(cpu, &loc_idle);
}

/* Also core_exit: an offline CPU is not kicked. */
static void loc_exit_idle(struct saakm_policy *pol, int cpu)
{
	cpumask_clear_cpu(cpu, &loc_idle);
}

static struct saakm_ops loc_ops = {
	.name			= "locality",
	.new_prepare		= loc_select_cpu,
	.new_place		= loc_place,
	.unblock_prepare	= loc_select_cpu,
	.unblock_place		= loc_place,
	.block			= loc_block,
	.yield			= loc_yield,
	.tick			= loc_tick,
	.terminate		= loc_terminate,
	.schedule		= loc_schedule,
	.newly_idle		= loc_busiest,
	.balance_pick		= loc_balance_pick,
	.enter_idle		= loc_enter_idle,
	.exit_idle		= loc_exit_idle,
	.core_entry		= loc_enter_idle,
	.core_exit		= loc_exit_idle,
};

static int __init loc_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		saakm_rq_init(&loc_cpu(cpu)->rq, SAAKM_RQ_FIFO, NULL, cpu);
	if (balance_ms) {	/* a period needs its callback, and the reverse */
		loc_ops.balance_ms = balance_ms;
		loc_ops.balancing_select = loc_busiest;
	}
	loc = saakm_register_policy(&loc_ops, NULL);
	return PTR_ERR_OR_ZERO(loc);
}

static void __exit loc_exit(void)
{
	saakm_unregister_policy(loc);
}
module_init(loc_init);
module_exit(loc_exit);
MODULE_DESCRIPTION("SaaKM LLC-aware locality policy");
MODULE_LICENSE("GPL");
