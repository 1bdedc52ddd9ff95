// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM observability: /proc/saakm and the /sys/kernel/saakm switches.
 *
 * /proc/saakm/policies  one line per policy: "id name tasks state"
 * /proc/saakm/events    one line per policy: "name event=count ..." with
 *                       the per-event counters and bad_transitions
 * /proc/saakm/errors    one line per ejected policy: "name reason"
 *
 * /sys/kernel/saakm/check_transitions  validate saakm_change_state() (1)
 * /sys/kernel/saakm/log_transitions    log refused transitions (1)
 * /sys/kernel/saakm/log_calls          log policy calls, rate-limited (0)
 * /sys/kernel/saakm/watchdog_timeout_ms  stall timeout of every policy (5000)
 * /sys/kernel/saakm/server_runtime_us  CPU time guaranteed to SaaKM tasks on
 *                                      each CPU per period, under RT/DL load
 *                                      (50000; 0 turns the guarantee off)
 * /sys/kernel/saakm/server_period_us   period of that guarantee (1000000)
 *
 * For a complete record of calls and state changes, use the saakm:saakm_event
 * and saakm:saakm_state tracepoints (defined in saakm.c) instead of
 * log_calls.
 */
#include <linux/kobject.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>
#include "saakm_internal.h"

DEFINE_STATIC_KEY_FALSE(saakm_log_calls_key);

static const char * const saakm_event_names[SAAKM_NR_EVENTS] = {
	[SAAKM_EV_NEW_PREPARE]		= "new_prepare",
	[SAAKM_EV_NEW_PLACE]		= "new_place",
	[SAAKM_EV_UNBLOCK_PREPARE]	= "unblock_prepare",
	[SAAKM_EV_UNBLOCK_PLACE]	= "unblock_place",
	[SAAKM_EV_BLOCK]		= "block",
	[SAAKM_EV_YIELD]		= "yield",
	[SAAKM_EV_TICK]			= "tick",
	[SAAKM_EV_TERMINATE]		= "terminate",
	[SAAKM_EV_SCHEDULE]		= "schedule",
	[SAAKM_EV_NEWLY_IDLE]		= "newly_idle",
	[SAAKM_EV_ENTER_IDLE]		= "enter_idle",
	[SAAKM_EV_EXIT_IDLE]		= "exit_idle",
	[SAAKM_EV_BALANCING_SELECT]	= "balancing_select",
	[SAAKM_EV_BALANCE_PICK]		= "balance_pick",
	[SAAKM_EV_CORE_ENTRY]		= "core_entry",
	[SAAKM_EV_CORE_EXIT]		= "core_exit",
	[SAAKM_EV_FREE_METADATA]	= "free_metadata",
	[SAAKM_EV_CHECKPARAM]		= "checkparam_attr",
	[SAAKM_EV_SETPARAM]		= "setparam_attr",
	[SAAKM_EV_MIGRATED]		= "migrated",
};

void saakm_log_call(struct saakm_policy *pol, enum saakm_event ev, int cpu)
{
	saakm_printk_ratelimited(KERN_INFO "saakm: %s.%s cpu %d\n", pol->name,
				 saakm_event_names[ev], cpu);
}

static const char *policy_state_name(int state)
{
	switch (state) {
	case SAAKM_POLICY_ENABLED:
		return "enabled";
	case SAAKM_POLICY_DISABLING:
		return "disabling";
	default:
		return "ejected";
	}
}

static int policies_show(struct seq_file *m, void *v)
{
	struct saakm_policy *pol;

	rcu_read_lock();
	for_each_saakm_policy(pol)
		seq_printf(m, "%d %s %d %s\n", pol->id, pol->name,
			   atomic_read(&pol->nr_tasks),
			   policy_state_name(READ_ONCE(pol->state)));
	rcu_read_unlock();
	return 0;
}

static int events_show(struct seq_file *m, void *v)
{
	struct saakm_policy *pol;
	int ev, cpu;

	rcu_read_lock();
	for_each_saakm_policy(pol) {
		seq_puts(m, pol->name);
		for (ev = 0; ev < SAAKM_NR_EVENTS; ev++) {
			u64 sum = 0;

			for_each_possible_cpu(cpu)
				sum += per_cpu_ptr(pol->pcpu, cpu)->events[ev];
			seq_printf(m, " %s=%llu", saakm_event_names[ev], sum);
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
			seq_printf(m, "%s %s\n", pol->name, pol->reason);
	rcu_read_unlock();
	return 0;
}

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

DECLARE_STATIC_KEY_TRUE(saakm_check_key);
DECLARE_STATIC_KEY_TRUE(saakm_log_transitions_key);

SAAKM_SWITCH(check_transitions, saakm_check_key);
SAAKM_SWITCH(log_transitions, saakm_log_transitions_key);
SAAKM_SWITCH(log_calls, saakm_log_calls_key);

static struct attribute *saakm_switch_attrs[] = {
	&saakm_switch_check_transitions.attr.attr,
	&saakm_switch_log_transitions.attr.attr,
	&saakm_switch_log_calls.attr.attr,
	&saakm_watchdog_attr.attr,
	&saakm_server_runtime_attr.attr,
	&saakm_server_period_attr.attr,
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

	kobj = kobject_create_and_add("saakm", kernel_kobj);
	if (!kobj)
		return -ENOMEM;
	return sysfs_create_group(kobj, &saakm_switch_group);
}
late_initcall(saakm_stats_init);
