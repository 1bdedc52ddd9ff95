// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM observability: /proc/saakm and the /sys/kernel/saakm switches.
 *
 * Every /proc/saakm file has one record per line, made of space-separated
 * key=value fields; values hold no spaces, except the last field of errors
 * (reason=), which runs to the end of the line. Keys are never renamed or
 * removed, new ones are only appended: parse by key (libsaakm does).
 *
 * /proc/saakm/policies  one line per policy, in slot (precedence) order:
 *   id=1 name=fifo tasks=3 state=enabled slot=0 balance_ms=0 timeout_ms=0
 *   unprivileged=0 module=saakm_fifo ("-" for a policy built in)
 *   generation=0 (live upgrades so far) upgrade_ns=0 (how long the last
 *   one stopped every CPU) swap_ns=0 (the part of it the swap itself
 *   took, on one CPU)
 * /proc/saakm/events    one line per policy: name=, a counter per event of
 *                       SAAKM_EVENTS() (calls made), bad_transitions=
 * /proc/saakm/errors    one line per ejected policy: name= kind= reason=
 * /proc/saakm/cpus      one line per online CPU and policy: cpu= name=
 *                       ready= (READY tasks queued) parked= (RUNNING tasks
 *                       the class parked) picks= (tasks schedule() returned)
 *                       migrations= (tasks moved to the CPU) wake_sum_ns=
 *                       and wake_hist= (wake-to-run waits that ended on the
 *                       CPU: their sum, and their histogram as
 *                       SAAKM_WAKE_HIST_BUCKETS comma-separated counts)
 *
 * /sys/kernel/saakm/check_transitions  validate saakm_change_state() (1)
 * /sys/kernel/saakm/log_transitions    log refused transitions (1)
 * /sys/kernel/saakm/log_calls          log policy calls, rate-limited (0)
 * /sys/kernel/saakm/wake_stats         keep the wake-to-run histograms (1)
 * /sys/kernel/saakm/watchdog_timeout_ms  stall timeout of every policy (5000)
 * /sys/kernel/saakm/server_runtime_us  CPU time guaranteed to SaaKM tasks on
 *                                      each CPU per period, under RT/DL load
 *                                      (50000; 0 turns the guarantee off)
 * /sys/kernel/saakm/server_period_us   period of that guarantee (1000000)
 * /sys/kernel/saakm/panic_on_error     panic at a policy error instead of
 *                                      ejecting the policy (0)
 * /sys/kernel/saakm/record             id of the policy being recorded into
 *                                      saakm:saakm_record events (0: none)
 *
 * For a complete record of calls and state changes, use the saakm:saakm_event
 * and saakm:saakm_state tracepoints (defined in saakm.c) instead of
 * log_calls.
 */
#include <linux/kobject.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>
#include "saakm_eject.h"
#include "saakm_record.h"
#include "saakm_safety.h"
#include "saakm_server.h"
#include "saakm_state.h"

/* In the order of their enum, which the same list generates. */
#define SAAKM_POLICY_STATE_NAME(NAME, name)	#name,

static const char * const saakm_policy_state_names[] = {
	SAAKM_POLICY_STATES(SAAKM_POLICY_STATE_NAME)
};

static int policies_show(struct seq_file *m, void *v)
{
	struct saakm_policy *pol;

	rcu_read_lock();
	for_each_saakm_policy(pol)
		seq_printf(m, "id=%d name=%s tasks=%d state=%s slot=%d balance_ms=%u timeout_ms=%u unprivileged=%d module=%s generation=%u upgrade_ns=%llu swap_ns=%llu\n",
			   pol->id, pol->ops.name, atomic_read(&pol->nr_tasks),
			   saakm_policy_state_names[READ_ONCE(pol->state)], pol->slot,
			   pol->ops.balance_ms, pol->ops.timeout_ms, pol->ops.unprivileged,
			   pol->owner ? module_name(pol->owner) : "-",
			   pol->generation, pol->upgrade_ns, pol->upgrade_swap_ns);
	rcu_read_unlock();
	return 0;
}

/* The rest of a line of /proc/saakm/cpus: migrations and wakeup waits. */
static void cpu_wake_show(struct seq_file *m, struct saakm_policy_pcpu *pc)
{
	int i;

	seq_printf(m, " migrations=%llu wake_sum_ns=%llu wake_hist=",
		   pc->events[SAAKM_EV_MIGRATED], pc->wake_sum_ns);
	for (i = 0; i < SAAKM_WAKE_HIST_BUCKETS; i++)
		seq_printf(m, "%s%llu", i ? "," : "", pc->wake_hist[i]);
	seq_putc(m, '\n');
}

static int cpus_show(struct seq_file *m, void *v)
{
	struct saakm_policy *pol;
	int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct rq *rq = cpu_rq(cpu);
		struct rq_flags rf;

		/* The parked list may change under us without the rq lock. */
		rq_lock_irqsave(rq, &rf);
		for_each_saakm_policy(pol) {
			struct saakm_policy_pcpu *pc = per_cpu_ptr(pol->pcpu, cpu);

			seq_printf(m, "cpu=%d name=%s ready=%u parked=%zu picks=%llu",
				   cpu, pol->ops.name, pc->nr_ready,
				   list_count_nodes(&pc->preempted), pc->picks);
			cpu_wake_show(m, pc);
		}
		rq_unlock_irqrestore(rq, &rf);
	}
	cpus_read_unlock();
	return 0;
}

static int events_show(struct seq_file *m, void *v)
{
	struct saakm_policy *pol;
	int ev, cpu;

	rcu_read_lock();
	for_each_saakm_policy(pol) {
		seq_printf(m, "name=%s", pol->ops.name);
		for (ev = 0; ev < SAAKM_NR_EVENTS; ev++) {
			u64 sum = 0;

			for_each_possible_cpu(cpu)
				sum += per_cpu_ptr(pol->pcpu, cpu)->events[ev];
			seq_printf(m, " %s=%llu", saakm_event_name(ev), sum);
		}
		seq_printf(m, " bad_transitions=%d\n",
			   atomic_read(&pol->nr_bad_transitions));
	}
	rcu_read_unlock();
	return 0;
}

static int errors_show(struct seq_file *m, void *v)
{
	struct saakm_policy *pol;

	rcu_read_lock();
	for_each_saakm_policy(pol)
		/* Pairs with the release in saakm_veject(): a complete reason. */
		if (smp_load_acquire(&pol->reason_set))
			seq_printf(m, "name=%s kind=%s reason=%s\n", pol->ops.name,
				   saakm_eject_kind_name(pol->kind), pol->reason);
	rcu_read_unlock();
	return 0;
}

DEFINE_STATIC_KEY_TRUE(saakm_wake_stats_key);

/* A sysfs switch backed by a static key. */
struct saakm_switch {
	struct kobj_attribute	attr;
	struct static_key	*key;
};

static ssize_t switch_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct saakm_switch *sw = container_of(attr, struct saakm_switch, attr);

	return sysfs_emit(buf, "%d\n", static_key_enabled(sw->key));
}

static ssize_t switch_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	struct saakm_switch *sw = container_of(attr, struct saakm_switch, attr);
	bool on;
	int ret;

	ret = kstrtobool(buf, &on);
	if (ret)
		return ret;
	if (on)
		static_key_enable(sw->key);
	else
		static_key_disable(sw->key);
	return count;
}

#define SAAKM_SWITCH(_name, _key)					\
	static struct saakm_switch saakm_switch_##_name = {		\
		.attr = __ATTR(_name, 0644, switch_show, switch_store),	\
		.key = &(_key).key,					\
	}

static ssize_t watchdog_timeout_ms_show(struct kobject *kobj,
					struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(saakm_watchdog_timeout_ms));
}

static ssize_t watchdog_timeout_ms_store(struct kobject *kobj,
					 struct kobj_attribute *attr,
					 const char *buf, size_t count)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint(buf, 0, &ms);
	if (ret)
		return ret;
	if (ms < 100 || ms > 600000)
		return -EINVAL;
	WRITE_ONCE(saakm_watchdog_timeout_ms, ms);
	return count;
}

static struct kobj_attribute saakm_watchdog_attr = __ATTR_RW(watchdog_timeout_ms);

/* The policy being recorded (saakm_record.c), by id; 0 for none. */
static ssize_t record_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", saakm_record_get());
}

static ssize_t record_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	int id, ret;

	ret = kstrtoint(buf, 0, &id);
	if (ret)
		return ret;
	if (id < 0)
		return -EINVAL;
	ret = saakm_record_set(id);
	return ret ? ret : count;
}

static struct kobj_attribute saakm_record_attr = __ATTR_RW(record);

/* The class's deadline server: runtime and period, in microseconds. */
static ssize_t server_show(char *buf, u64 ns)
{
	return sysfs_emit(buf, "%llu\n", div_u64(ns, NSEC_PER_USEC));
}

static DEFINE_MUTEX(server_mutex);

static ssize_t server_store(const char *buf, size_t count, bool runtime)
{
	u64 us;
	int ret;

	ret = kstrtou64(buf, 0, &us);
	if (ret)
		return ret;
	if (us > 4 * USEC_PER_SEC)
		return -EINVAL;
	us *= NSEC_PER_USEC;
	/* One writer at a time: each write keeps the other value. */
	mutex_lock(&server_mutex);
	ret = saakm_server_set_params(runtime ? us : saakm_server_runtime_ns,
				      runtime ? saakm_server_period_ns : us);
	mutex_unlock(&server_mutex);
	return ret ? ret : count;
}

/* server_<name>_us, shown from @ns_var, written with server_store(@runtime). */
#define SAAKM_SERVER_ATTR(_name, ns_var, runtime)				\
	static ssize_t server_##_name##_us_show(struct kobject *kobj,		\
						struct kobj_attribute *attr,	\
						char *buf)			\
	{									\
		return server_show(buf, READ_ONCE(ns_var));		\
	}									\
	static ssize_t server_##_name##_us_store(struct kobject *kobj,		\
						 struct kobj_attribute *attr,	\
						 const char *buf, size_t count)	\
	{									\
		return server_store(buf, count, runtime);			\
	}									\
	static struct kobj_attribute saakm_server_##_name##_attr =		\
		__ATTR_RW(server_##_name##_us)

SAAKM_SERVER_ATTR(runtime, saakm_server_runtime_ns, true);
SAAKM_SERVER_ATTR(period, saakm_server_period_ns, false);

SAAKM_SWITCH(check_transitions, saakm_check_key);
SAAKM_SWITCH(log_transitions, saakm_log_transitions_key);
SAAKM_SWITCH(log_calls, saakm_log_calls_key);
SAAKM_SWITCH(panic_on_error, saakm_panic_key);
SAAKM_SWITCH(wake_stats, saakm_wake_stats_key);

static struct attribute *saakm_switch_attrs[] = {
	&saakm_switch_check_transitions.attr.attr,
	&saakm_switch_log_transitions.attr.attr,
	&saakm_switch_log_calls.attr.attr,
	&saakm_switch_panic_on_error.attr.attr,
	&saakm_switch_wake_stats.attr.attr,
	&saakm_watchdog_attr.attr,
	&saakm_server_runtime_attr.attr,
	&saakm_server_period_attr.attr,
	&saakm_record_attr.attr,
	NULL,
};

static const struct attribute_group saakm_switch_group = {
	.attrs = saakm_switch_attrs,
};

static int __init saakm_stats_init(void)
{
	struct proc_dir_entry *dir;
	struct kobject *kobj;

	dir = proc_mkdir("saakm", NULL);
	if (!dir)
		return -ENOMEM;
	proc_create_single("policies", 0444, dir, policies_show);
	proc_create_single("events", 0444, dir, events_show);
	proc_create_single("errors", 0444, dir, errors_show);
	proc_create_single("cpus", 0444, dir, cpus_show);
	if (saakm_record_proc_init(dir))
		return -ENOMEM;

	kobj = kobject_create_and_add("saakm", kernel_kobj);
	if (!kobj)
		return -ENOMEM;
	return sysfs_create_group(kobj, &saakm_switch_group);
}
late_initcall(saakm_stats_init);
