// SPDX-License-Identifier: GPL-2.0
/*
 * A registered balancing policy leaves fair tasks their fast path. The
 * core's __pick_next_task() calls fair's pick directly when every task on
 * the runqueue is fair; the class used to send each pick down the full
 * class loop instead while any policy had newly_idle or balancing_select,
 * so that SaaKM's balance() could pull before a CPU idles. That cost EEVDF
 * 3.3% on pipe_1cpu with wfq loaded and no task in it. Now the full loop
 * runs only when fair has nothing to run.
 *
 * The full loop is seen with a kprobe on pick_task_rt(), which only it
 * calls (tracing/kprobe_profile counts the hits). A ping-pong of two
 * pinned tasks makes two picks per round trip:
 *   - as SCHED_FIFO tasks, every pick takes the full loop (the control: it
 *     shows the probe counts);
 *   - as fair tasks, with no policy and then with wfq registered, at most
 *     one pick in 20 may (before the fix: every pick with wfq).
 */
#include "saakm_test.h"
#include <sys/mount.h>

SAAKM_TAG("timeout=120");

#define ROUNDS		5000
#define WFQ_KO		"policies/wfq/saakm_wfq.ko"
#define TRACING		"/sys/kernel/tracing"
#define PROBE		"saakm_fastpath_rt"
#define PROBE_DIR	TRACING "/events/kprobes/" PROBE

static int probe_made, tracefs_mounted;

/*
 * Append @line to tracefs file @name, so kprobe_events keeps its other
 * probes. Not fopen("a"): it seeks to the end, which seq files refuse.
 */
static int tracefs_append(const char *name, const char *line)
{
	char path[128];
	ssize_t len = strlen(line), n;
	int fd;

	snprintf(path, sizeof(path), TRACING "/%s", name);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return -1;
	n = write(fd, line, len);
	close(fd);
	return n == len ? 0 : -1;
}

static void cleanup(void)
{
	if (module_loaded("saakm_wfq"))
		unload_module_within("saakm_wfq", 10, NULL);
	if (probe_made) {
		write_file(PROBE_DIR "/enable", "0");
		tracefs_append("kprobe_events", "-:" PROBE "\n");
	}
	if (tracefs_mounted)
		umount(TRACING);
}

/* A kprobe on pick_task_rt(), enabled (a disabled kprobe is not armed). */
static int make_probe(void)
{
	if (access(TRACING "/kprobe_events", F_OK) &&
	    !mount("nodev", TRACING, "tracefs", 0, NULL))
		tracefs_mounted = 1;
	if (tracefs_append("kprobe_events", "p:" PROBE " pick_task_rt\n")) {
		printf("# adding the kprobe: %s\n", strerror(errno));
		return -1;
	}
	probe_made = 1;
	if (write_file(PROBE_DIR "/enable", "1")) {
		printf("# enabling the kprobe: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The probe's hits so far (kprobe_profile: name, hits, misses), or -1. */
static long long probe_hits(void)
{
	char line[256], name[128];
	long long hits, n = -1;
	FILE *f = fopen(TRACING "/kprobe_profile", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lld", name, &hits) == 2 && !strcmp(name, PROBE))
			n = hits;
	if (f)
		fclose(f);
	return n;
}

static int enter_fifo(long prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler(0, SCHED_FIFO, &sp) ? -errno : 0;
}

/* ROUNDS round trips on @cpu; the full-loop picks they took, or -1. */
static long long full_loop_picks(int cpu, int (*enter)(long), long arg)
{
	long long h0 = probe_hits(), h1;

	if (h0 < 0 || !ping_pong(ROUNDS, cpu, enter, arg, NULL))
		return -1;
	h1 = probe_hits();
	printf("# %d round trips: %lld full-loop picks\n", ROUNDS, h1 - h0);
	return h1 - h0;
}

int main(void)
{
	int cpu = nr_cpus() - 1;
	long long n;

	atexit(cleanup);
	TAP_CHECK(make_probe() == 0, "kprobe on pick_task_rt() enabled");

	tap_subtest("control: SCHED_FIFO tasks");
	n = full_loop_picks(cpu, enter_fifo, 10);
	TAP_CHECK(n >= ROUNDS, "the probe counts their full-loop picks (one per round trip or more)");

	tap_subtest("fair tasks, no policy");
	n = full_loop_picks(cpu, NULL, 0);
	TAP_CHECK(n >= 0 && n <= ROUNDS / 10, "at most one pick in 20 takes the full loop");

	tap_subtest("fair tasks, wfq registered with no task");
	TAP_CHECK(load_policy("wfq", WFQ_KO, NULL) > 0, "wfq loaded");
	n = full_loop_picks(cpu, NULL, 0);
	TAP_CHECK(n >= 0 && n <= ROUNDS / 10, "at most one pick in 20 takes the full loop");
	TAP_CHECK(unload_module_within("saakm_wfq", 10, NULL) == 0, "wfq unloads");

	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
