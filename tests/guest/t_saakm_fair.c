// SPDX-License-Identifier: GPL-2.0
/*
 * Fairness of the fair-share schedulers, the same workloads
 * under each of: the kernel's EEVDF (SCHED_OTHER, the reference), the
 * SaaKM policies wfq and eevdf (policies/{wfq,eevdf}), and ext_wfq, the
 * sched_ext twin of wfq (build/bench/ext_wfq).
 *
 * - nice: two CPU hogs at nice 0 and nice 5 pinned on one CPU for 10 s:
 *   their CPU-time ratio must be within 5% of 1024/335 = 3.06.
 * - 3 on 2: three equal hogs allowed two CPUs for 20 s: each must get
 *   66.7% of a CPU, +- 10% of that.
 *
 * The targets are asserted for the SaaKM policies; EEVDF's and ext_wfq's
 * figures are printed next to them, in make test-full (make test runs the
 * SaaKM policies only). A policy whose module is not built is
 * skipped, as is ext_wfq without its binary or with another sched_ext
 * scheduler enabled. Every hog's class is checked while it runs.
 */
#include "saakm_test.h"
#include <sys/resource.h>

SAAKM_TAG("timeout=400");
/* A timing figure: the debug kernel's slowness is not the policy's. */
SAAKM_TAG("normal-only");

#define SCHED_EXT	7
#define MAX_HOGS	3
#define NICE_RATIO	(1024.0 / 335.0)

enum kind { K_EEVDF, K_SAAKM, K_EXT };

struct sched {
	const char *label;
	enum kind kind;
	const char *name;	/* SaaKM policy name */
	const char *path;	/* module or sched_ext binary, in SAAKM_ROOT */
	int asserted;		/* the targets apply */
	int id;			/* SaaKM policy id */
	int loaded;		/* loaded by this test */
	pid_t ext;		/* the sched_ext loader */
};

static struct sched scheds[] = {
	{ "EEVDF", K_EEVDF, NULL, NULL, 0 },
	{ "wfq", K_SAAKM, "wfq", "policies/wfq/saakm_wfq.ko", 1 },
	{ "eevdf (module)", K_SAAKM, "eevdf", "policies/eevdf/saakm_eevdf.ko", 1 },
	{ "ext_wfq", K_EXT, NULL, "build/bench/ext_wfq", 0 },
};

/* What the hogs do, set before they are forked. */
static struct sched *cur;
static int hog_nice[MAX_HOGS];
static cpu_set_t hog_cpus;
static volatile int *joined;	/* shared: 1 joined, -errno failed */

static const char *root(void)
{
	return getenv("SAAKM_ROOT") ? getenv("SAAKM_ROOT") : ".";
}

/* Move the caller to @s's class with nice @nice: 0 or -errno. */
static int enter(struct sched *s, int nice)
{
	struct saakm_sched_attr a = { .size = sizeof(a), .sched_nice = nice };

	if (s->kind == K_EEVDF)
		return setpriority(PRIO_PROCESS, 0, nice) ? -errno : 0;
	a.sched_policy = s->kind == K_SAAKM ? SCHED_SAAKM : SCHED_EXT;
	a.sched_saakm_id = s->kind == K_SAAKM ? s->id : 0;
	return sys_setattr(0, &a);
}

static int hog(long i)
{
	int ret = sched_setaffinity(0, sizeof(hog_cpus), &hog_cpus) ? -errno : 0;

	if (!ret)
		ret = enter(cur, hog_nice[i]);
	joined[i] = ret ? ret : 1;
	if (ret)
		return 1;
	while (!*stop)
		;
	return 0;
}

/* Is @pid in @s's class right now? */
static int in_class(struct sched *s, pid_t pid)
{
	switch (s->kind) {
	case K_EEVDF:
		return sched_getscheduler(pid) == SCHED_OTHER;
	case K_SAAKM:
		return saakm_id_of(pid) == s->id;
	default:
		return sched_getscheduler(pid) == SCHED_EXT;
	}
}

static int ext_state_is(const char *want)
{
	char buf[32];

	read_first_line("/sys/kernel/sched_ext/state", buf, sizeof(buf));
	return !strcmp(buf, want);
}

static void teardown(struct sched *s);

/* Load @s's module or start its sched_ext scheduler: 0, or -1 to skip (say why). */
static int setup(struct sched *s)
{
	char path[512];
	pid_t pid;

	if (s->kind == K_EEVDF)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", root(), s->path);
	if (access(path, R_OK)) {
		tap_skip(s->label, "%s not built", s->path);
		return -1;
	}
	if (s->kind == K_SAAKM) {
		s->id = policy_id(s->name);
		if (s->id < 0) {
			s->id = load_policy(s->name, s->path, NULL);
			s->loaded = 1;
		}
		if (s->id <= 0)
			tap_not_ok(s->label, "%s did not load", s->path);
		return s->id > 0 ? 0 : -1;
	}
	if (!ext_state_is("disabled")) {
		tap_skip(s->label, "sched_ext missing or another scheduler enabled");
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		freopen("/tmp/t_saakm_fair.ext.log", "w", stdout);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	saakm_track_child(pid);
	s->ext = pid;
	for (int i = 0; i < 100 && !ext_state_is("enabled"); i++)
		usleep(100000);
	if (!ext_state_is("enabled")) {
		tap_not_ok(s->label, "not enabled within 10 s (see its log below)");
		teardown(s);
		return -1;
	}
	return 0;
}

static void teardown(struct sched *s)
{
	char line[256];
	FILE *f;

	if (s->kind == K_SAAKM)
		print_events(s->name);
	if (s->kind == K_SAAKM && s->loaded) {
		snprintf(line, sizeof(line), "%s: still enabled after the runs (not ejected)", s->label);
		TAP_CHECK(policy_enabled(s->name), line);
		snprintf(line, sizeof(line), "saakm_%s", s->name);
		unload_module(line);
	}
	if (s->kind == K_EXT && s->ext > 0) {
		kill(s->ext, SIGINT);
		stop_child(&s->ext, 10);
		f = fopen("/tmp/t_saakm_fair.ext.log", "r");
		while (f && fgets(line, sizeof(line), f))
			printf("# %s", line);
		if (f)
			fclose(f);
	}
}

/*
 * Run @n hogs (nice values in hog_nice, CPUs in hog_cpus) under @s for
 * @secs; their CPU time over that span into @ns. 0, or -1 if a hog did not
 * join or left the class.
 */
static int run_hogs(struct sched *s, int n, double secs, long long *ns)
{
	pid_t pids[MAX_HOGS];
	long long t0[MAX_HOGS];
	int ok = 1, i;

	cur = s;
	*stop = 0;
	for (i = 0; i < n; i++) {
		joined[i] = 0;
		pids[i] = spawn(hog, i);
	}
	for (int t = 0; t < 500; t++) {
		int all = 1;

		for (i = 0; i < n; i++)
			all &= joined[i] != 0;
		if (all)
			break;
		usleep(10000);
	}
	for (i = 0; i < n; i++) {
		ok &= joined[i] == 1;
		t0[i] = task_runtime_ns(pids[i]);
	}
	usleep((useconds_t)(secs * 1e6 / 2));
	for (i = 0; i < n; i++) {
		ok &= in_class(s, pids[i]);
		printf("# %s: hog %d (nice %d) on cpu %d at mid-run\n", s->label, i, hog_nice[i],
		       task_cpu_of(pids[i]));
	}
	usleep((useconds_t)(secs * 1e6 / 2));
	for (i = 0; i < n; i++)
		ns[i] = task_runtime_ns(pids[i]) - t0[i];
	*stop = 1;
	for (i = 0; i < n; i++)
		ok &= reaped_ok(pids[i]);
	return ok ? 0 : -1;
}

static double ratios[4], shares[4][MAX_HOGS];

static void nice_test(struct sched *s, int cpu, double *ratio)
{
	long long ns[2];
	char desc[160];

	CPU_ZERO(&hog_cpus);
	CPU_SET(cpu, &hog_cpus);
	hog_nice[0] = 0;
	hog_nice[1] = 5;
	*ratio = 0;
	if (run_hogs(s, 2, 10, ns) || ns[1] <= 0) {
		tap_not_ok(s->label, "nice 0 and 5: the hogs did not run in the class");
		return;
	}
	*ratio = (double)ns[0] / ns[1];
	snprintf(desc, sizeof(desc), "%s: nice 0 and 5 on cpu %d for 10 s: %.1f%% and %.1f%%, ratio %.3f (want %.3f +- 5%%)",
		 s->label, cpu, ns[0] / 1e8, ns[1] / 1e8, *ratio, NICE_RATIO);
	if (s->asserted)
		TAP_CHECK(*ratio >= NICE_RATIO * 0.95 && *ratio <= NICE_RATIO * 1.05, desc);
	else
		printf("# %s\n", desc);
}

static void three_on_two(struct sched *s, int a, int b, double *share)
{
	long long ns[3];
	char desc[160];
	int i, good = 1;

	CPU_ZERO(&hog_cpus);
	CPU_SET(a, &hog_cpus);
	CPU_SET(b, &hog_cpus);
	for (i = 0; i < 3; i++)
		hog_nice[i] = 0;
	if (run_hogs(s, 3, 20, ns)) {
		tap_not_ok(s->label, "3 on 2: the hogs did not run in the class");
		return;
	}
	for (i = 0; i < 3; i++) {
		share[i] = ns[i] / 20e9 * 100;
		good &= share[i] >= 200.0 / 3 * 0.9 && share[i] <= 200.0 / 3 * 1.1;
	}
	snprintf(desc, sizeof(desc), "%s: 3 hogs on cpus %d,%d for 20 s: %.1f%% %.1f%% %.1f%% of a CPU (want 66.7 +- 10%%)",
		 s->label, a, b, share[0], share[1], share[2]);
	if (s->asserted)
		TAP_CHECK(good, desc);
	else
		printf("# %s\n", desc);
}

int main(void)
{
	int n = nr_cpus(), nice_cpu = n - 1, a = n >= 3 ? 1 : 0;
	size_t i;

	if (n < 2) {
		tap_skip("fairness", "needs 2 CPUs");
		return tap_done();
	}
	stop_init();
	joined = shared_mem(sizeof(int) * MAX_HOGS);
	pin_to(0, 0);
	for (i = 0; i < sizeof(scheds) / sizeof(scheds[0]); i++) {
		struct sched *s = &scheds[i];

		/* the references are figures to compare, not checks: make test-full */
		if (!s->asserted && !env_is_1("SAAKM_FULL")) {
			tap_skip(s->label, "a reference, measured in make test-full");
			continue;
		}
		if (setup(s))
			continue;
		nice_test(s, nice_cpu, &ratios[i]);
		three_on_two(s, a, a + 1, shares[i]);
		teardown(s);
	}
	printf("# summary: nice 0:5 ratio (want %.3f) and 3-on-2 shares (want 66.7%%)\n", NICE_RATIO);
	for (i = 0; i < sizeof(scheds) / sizeof(scheds[0]); i++)
		printf("#   %-16s %.3f   %.1f %.1f %.1f\n", scheds[i].label, ratios[i],
		       shares[i][0], shares[i][1], shares[i][2]);
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
