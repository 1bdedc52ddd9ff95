// SPDX-License-Identifier: GPL-2.0
/*
 * Every event of the policy API fires where it should, as seen by the probe
 * test policy (its own counters) and by the class (/proc/saakm/events):
 * fork, sleep/wake, yield, tick, exit, idle, balancing, hotplug, nice and
 * attribute changes, registration and unregistration.
 */
#include "saakm_test.h"
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>

/*
 * The probe's counters (its "counts" parameter): one per event of
 * SAAKM_EVENTS, in that order (libsaakm's saakm_event_names[]), then init
 * and exit.
 */
#define PROBE_INIT	SAAKM_NR_EVENTS
#define PROBE_EXIT	(SAAKM_NR_EVENTS + 1)
#define NR_EV		(SAAKM_NR_EVENTS + 2)

static unsigned long counts[NR_EV];

static const char *ev_name(int i)
{
	if (i == PROBE_INIT)
		return "init";
	if (i == PROBE_EXIT)
		return "exit";
	return saakm_event_names[i];
}

static int read_counts(void)
{
	FILE *f = fopen("/sys/module/saakm_probe/parameters/counts", "r");
	int n = 0;

	if (!f)
		return -1;
	while (n < NR_EV && fscanf(f, "%lu,", &counts[n]) == 1)
		n++;
	fclose(f);
	return n;
}

static unsigned long count(const char *name)
{
	for (int i = 0; i < NR_EV; i++)
		if (!strcmp(ev_name(i), name))
			return counts[i];
	return 0;
}

static int read_param(const char *name)
{
	char path[128];
	int v = -12345;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/saakm_probe/parameters/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -12345;
		fclose(f);
	}
	return v;
}

static int busy_life(long unused __attribute__((unused)))
{
	for (int i = 0; i < 20; i++) {
		spin_for(0.002);
		usleep(2000);
		sched_yield();
	}
	return 0;
}

/* Three spinners on CPU 0 (even pids), the other CPUs left idle. */
static void imbalance(pid_t *spin)
{
	int n = 0;

	while (n < 3) {
		pid_t pid = spawn(spinner, 0);

		if (pid % nr_cpus() == 0)
			spin[n++] = pid;
		else
			kill(pid, SIGKILL), waitpid(pid, NULL, 0);
	}
}

/* Read a cpulist file of sysfs into @buf (trailing newline removed). */
static int read_list(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok = f && fgets(buf, len, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok;
}

/* The topology the class exports matches what sysfs says. */
static void check_topology(int ncpus)
{
	char path[128], smt[64], online[64], cmd[256];
	int ok = read_list("/sys/devices/system/cpu/online", online, sizeof(online));

	for (int cpu = 0; ok && cpu < ncpus; cpu++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
		if (!read_list(path, smt, sizeof(smt)))
			continue;
		snprintf(cmd, sizeof(cmd),
			 "dmesg | grep -q 'saakm_probe: topo cpu%d smt=%s llc=.* system=%s distance0='",
			 cpu, smt, online);
		ok &= system(cmd) == 0;
	}
	TAP_CHECK(ok, "topology levels exported to policies match sysfs (SMT, system)");
}

int main(void)
{
	struct saakm_sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_SAAKM }, got = { 0 };
	char blob[8] = "hello";
	pid_t kids[4], spin[3];
	int ncpus = nr_cpus(), id, ok;

	stop_init();
	tap_subtest("setup");
	id = load_policy("probe", "tests/modules/saakm_probe/saakm_probe.ko", NULL);
	TAP_CHECK(id > 0, "probe policy loaded");
	if (id <= 0)
		return tap_done();
	TAP_CHECK(saakm_join(0, id, 0) == 0, "the test joins probe");

	tap_subtest("workload");

	for (int i = 0; i < 4; i++)
		kids[i] = spawn(busy_life, 0);
	ok = 1;
	for (int i = 0; i < 4; i++)
		ok &= reaped_ok(kids[i]);
	TAP_CHECK(ok, "forked sleep/yield children complete");

	imbalance(spin);
	usleep(500000);
	*stop = 1;
	for (int i = 0; i < 3; i++)
		reaped_ok(spin[i]);

	if (ncpus > 1) {
		tap_subtest("hotplug");
		TAP_CHECK(set_cpu_online(ncpus - 1, 0) == 0, "take the last CPU offline");
		TAP_CHECK(set_cpu_online(ncpus - 1, 1) == 0, "and back online");
	}

	tap_subtest("attributes");
	TAP_CHECK(setpriority(PRIO_PROCESS, 0, 5) == 0, "setpriority(5) on a probe task");
	a.sched_saakm_id = id;
	a.sched_nice = 5;
	a.sched_saakm_attr = (uintptr_t)blob;
	a.sched_saakm_attr_size = 5;
	TAP_CHECK(sys_setattr(0, &a) == 0, "sched_setattr with a 5-byte blob");
	TAP_CHECK(read_param("last_attr_size") == 5, "setparam_attr saw the blob");
	blob[0] = 'X';
	TAP_CHECK(sys_setattr(0, &a) == -EINVAL, "checkparam_attr can reject attributes (EINVAL)");

	TAP_CHECK(read_param("last_nice") == 5, "nice change reached setparam_attr");

	a.sched_saakm_attr_size = 0;
	a.sched_runtime = 2000000;
	TAP_CHECK(sys_setattr(0, &a) == 0 && read_param("last_runtime") == 2000000,
		  "sched_runtime reaches setparam_attr as attr->runtime");
	TAP_CHECK(sys_getattr(0, &got, sizeof(got)) == 0 && got.sched_runtime == 2000000,
		  "sched_getattr reports the sched_runtime asked for");
	a.sched_runtime = 0;
	a.sched_nice = 20;
	TAP_CHECK(sys_setattr(0, &a) == -EINVAL, "nice 20 is refused (EINVAL), not clamped");
	a.sched_nice = -21;
	TAP_CHECK(sys_setattr(0, &a) == -EINVAL, "nice -21 is refused (EINVAL), not clamped");
	TAP_CHECK(read_param("last_nice") == 5, "a refused nice never reached the policy");

	tap_subtest("events");
	TAP_CHECK(read_counts() == NR_EV, "probe counters readable");
	for (int i = 0; i < NR_EV; i++) {
		char desc[64];

		/* exit comes at unload; migrated has no callback */
		if (i == PROBE_EXIT || i == SAAKM_EV_MIGRATED)
			continue;
		if (i == SAAKM_EV_CORE_EXIT && ncpus < 2)
			continue;
		snprintf(desc, sizeof(desc), "event %s fired", ev_name(i));
		if (counts[i])
			tap_ok(desc);
		else
			tap_not_ok(desc, "count is 0");
	}
	TAP_CHECK(count("init") == 1, "init called once");
	TAP_CHECK(count("core_entry") >= (unsigned long)ncpus, "core_entry for every CPU");
	TAP_CHECK(event_count("probe", "new_place") > 0 && event_count("probe", "bad_transitions") == 0,
		  "/proc/saakm/events agrees, with no bad transition");

	tap_subtest("topology");
	check_topology(ncpus);

	tap_subtest("unload");
	TAP_CHECK(saakm_leave(0) == 0, "leave probe");
	TAP_CHECK(unload_module("saakm_probe") == 0, "rmmod saakm_probe");
	TAP_CHECK(system("dmesg | grep -q 'saakm_probe: exit'") == 0, "exit called at unload");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
