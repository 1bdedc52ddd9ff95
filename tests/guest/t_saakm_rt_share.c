// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM tasks get a small guaranteed share of a CPU that a real-time task
 * monopolises: the class has a deadline server, like
 * the fair class's, tuned by /sys/kernel/saakm/server_runtime_us and
 * server_period_us (50 ms every 1 s by default).
 *
 * A fifo spinner pinned to CPU 1 beside a SCHED_FIFO hog pinned there for
 * 6 s gets at least 4% of CPU 1. For reference, the share a SCHED_OTHER
 * spinner gets in its place (from the fair server) is printed. If the
 * knobs exist, writes are validated (runtime > period refused) and read
 * back.
 */
#include "saakm_test.h"
#include <signal.h>

#define CPU		1
#define HOG_S		6.0	/* the RT hog exits by itself after this */
#define MIN_SHARE	0.04
#define KNOB_DIR	"/sys/kernel/saakm/"

struct shared {
	volatile int hog_started;
	volatile int hog_done;
	volatile int joined;	/* spinner: 1 joined, <0 -errno */
};

static struct shared *sh;
static pid_t hog, spin;
static int loaded;

/* SCHED_FIFO on CPU 1 for HOG_S seconds: always ends by itself. */
static int rt_hog(long unused)
{
	return rt_spin(CPU, HOG_S, &sh->hog_started, &sh->hog_done);
}

/* Spins on CPU 1, in policy @id (0: stay SCHED_OTHER); bounded too. */
static int spinner_on(long id)
{
	return spin_pinned(CPU, id, 4 * HOG_S, &sh->joined);
}

static void stop_children(void)
{
	*stop = 1;
	stop_child(&spin, 2 * HOG_S);
	/* The hog ends by itself within HOG_S. */
	stop_child(&hog, HOG_S + 2);
}

static void cleanup(void)
{
	stop_children();
	if (loaded) {
		loaded = 0;
		unload_module("saakm_fifo");
	}
}

/*
 * Share of CPU 1 a spinner (fifo if @id, else SCHED_OTHER) gets while the
 * RT hog runs there; -1 if the experiment could not run.
 */
static double share_under_rt(int id)
{
	long long r0, r1;
	double t0, t1, share;

	memset(sh, 0, sizeof(*sh));
	*stop = 0;
	spin = spawn(spinner_on, id);
	if (wait_joined(&sh->joined, "spinner did not start")) {
		stop_children();
		return -1;
	}
	usleep(200000);
	hog = spawn(rt_hog, 0);
	if (!wait_flag(&sh->hog_started, 5)) {
		printf("# the RT hog did not start\n");
		stop_children();
		return -1;
	}
	t0 = now_s();
	r0 = task_runtime_ns(spin);
	while (!sh->hog_done && now_s() < t0 + HOG_S + 5)
		usleep(1000);
	t1 = now_s();
	r1 = task_runtime_ns(spin);
	stop_children();
	if (r0 < 0 || r1 < 0)
		return -1;
	share = (r1 - r0) / ((t1 - t0) * 1e9);
	printf("# %s spinner under the RT hog: %.0f ms of CPU in %.2f s (%.1f%%)\n",
	       id ? "fifo" : "SCHED_OTHER", (r1 - r0) / 1e6, t1 - t0, 100 * share);
	return share;
}

static long read_knob(const char *name)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), KNOB_DIR "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* 0 or -errno of writing @val to knob @name (one write(2)). */
static int write_knob(const char *name, long val)
{
	char path[128], buf[32];
	int fd, n, ret = 0;

	snprintf(path, sizeof(path), KNOB_DIR "%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%ld\n", val);
	if (write(fd, buf, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

static void check_knobs(void)
{
	long rt = read_knob("server_runtime_us"), per = read_knob("server_period_us");
	int ret;

	if (rt < 0 || per < 0) {
		tap_skip("server knobs validated", "no " KNOB_DIR "server_{runtime,period}_us");
		return;
	}
	printf("# server: %ld us every %ld us\n", rt, per);
	TAP_CHECK(rt > 0 && rt < per, "server runtime is below its period");
	ret = write_knob("server_runtime_us", per + 1);
	printf("# writing runtime %ld > period %ld: %s\n", per + 1, per, strerror(-ret));
	TAP_CHECK(ret < 0, "a runtime longer than the period is refused");
	TAP_CHECK(read_knob("server_runtime_us") == rt, "... and the runtime is unchanged");
	ret = write_knob("server_period_us", rt - 1);
	TAP_CHECK(ret < 0, "a period shorter than the runtime is refused");
	TAP_CHECK(read_knob("server_period_us") == per, "... and the period is unchanged");
	ret = write_knob("server_runtime_us", rt + 1000 < per ? rt + 1000 : rt - 1);
	TAP_CHECK(!ret && read_knob("server_runtime_us") == (rt + 1000 < per ? rt + 1000 : rt - 1),
		  "a valid runtime is taken and read back");
	TAP_CHECK(!write_knob("server_runtime_us", rt) && read_knob("server_runtime_us") == rt,
		  "the runtime is restored");
}

int main(void)
{
	double fair, mine;
	int id;

	require_cpus(2, "SaaKM share under an RT hog");
	stop_init();
	sh = shared_mem(sizeof(*sh));
	atexit(cleanup);
	/* The parent watches from CPU 0. */
	pin_to(0, 0);

	check_knobs();

	fair = share_under_rt(0);
	if (fair >= 0)
		printf("# reference: a SCHED_OTHER spinner got %.1f%% (fair server)\n", 100 * fair);

	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	loaded = id > 0;
	TAP_CHECK(id > 0, "fifo loaded");
	if (id <= 0)
		return tap_done();
	mine = share_under_rt(id);
	if (mine >= MIN_SHARE)
		tap_ok("a fifo spinner gets >= 4% of a CPU an RT task monopolises");
	else
		tap_not_ok("a fifo spinner gets >= 4% of a CPU an RT task monopolises",
			   "it got %.1f%% (SCHED_OTHER in its place: %.1f%%)", 100 * mine, 100 * fair);
	TAP_CHECK(policy_enabled("fifo"),
		  "fifo still enabled");
	cleanup();
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
