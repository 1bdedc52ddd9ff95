// SPDX-License-Identifier: GPL-2.0
/*
 * Core scheduling (SMT cookies) must not lose SaaKM tasks: with core
 * scheduling on, the scheduler core calls pick_task on both siblings of a
 * core and throws some picks away. A class whose pick has side effects
 * leaves such a task RUNNING in no queue, never picked again.
 *
 * On CPUs 0 and 1, SMT siblings: per CPU, a fifo spinner with a cookie of
 * its own, a plain fifo spinner, and a fair task with a cookie that runs
 * 2 ms in every 10 ms (so the core keeps choosing between cookies). Every
 * fifo spinner's runtime (/proc/PID/schedstat) must advance in each of two
 * 5 s windows.
 *
 * Needs an SMT guest: run by the host test t_saakm_core_sched.sh
 * (tests/run.sh --topology 1,1,2); skipped elsewhere, hence opt-in.
 */
#include "saakm_test.h"
#include <signal.h>
#include <sys/prctl.h>

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE		62
#endif
#ifndef PR_SCHED_CORE_GET
#define PR_SCHED_CORE_GET	0
#define PR_SCHED_CORE_CREATE	1
#endif
#define PIDTYPE_PID		0

/* Tags for the suite runner, which reads them from the binary. */
__attribute__((used)) static const char tag_opt_in[] = "saakm-test: opt-in";
__attribute__((used)) static const char tag_timeout[] = "saakm-test: timeout=150";

#define NR_PER_CPU	3	/* cookie'd fifo, plain fifo, cookie'd fair */
#define NR_TASKS	(2 * NR_PER_CPU)
#define TASK_LIFE_S	60.0	/* every child exits by itself after this */

enum kind { FIFO_COOKIE, FIFO_PLAIN, FAIR_COOKIE };
static const char * const kind_name[] = { "fifo+cookie", "fifo", "fair+cookie" };

/* Set up by each child, read by the parent: 0 or -errno per step. */
struct child_report {
	volatile int ready;
	volatile int cookie_err;
	volatile int join_err;
};

static struct child_report *rep;
static pid_t pids[NR_TASKS];
static int policy;

static int do_cookie(void)
{
	return prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0, PIDTYPE_PID, 0) ? -errno : 0;
}

static int child(long i)
{
	int cpu = i / NR_PER_CPU;
	enum kind k = i % NR_PER_CPU;
	struct child_report *r = &rep[i];
	double end = now_s() + TASK_LIFE_S;

	if (pin_to(0, cpu))
		return 1;
	if (k != FIFO_PLAIN)
		r->cookie_err = do_cookie();
	if (k != FAIR_COOKIE)
		r->join_err = saakm_join(0, policy, 0);
	r->ready = 1;
	if (k == FAIR_COOKIE) {
		while (!*stop && now_s() < end) {
			spin_for(0.002);
			usleep(8000);
		}
		return 0;
	}
	if (r->join_err)
		return 0;
	while (!*stop && now_s() < end)
		;
	return 0;
}

/* CPU 1 is an SMT sibling of CPU 0. */
static int smt_pair(void)
{
	char buf[64];

	if (read_first_line("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list",
			    buf, sizeof(buf)))
		return 0;
	printf("# cpu0 thread siblings: %s\n", buf);
	return !strcmp(buf, "0-1") || !strcmp(buf, "0,1");
}

/* rmmod in a child, so a drain that never ends cannot hang the test. */
static int rmmod_by(const char *module, double secs)
{
	int status;
	double end = now_s() + secs;
	pid_t pid = fork();

	if (pid == 0) {
		execlp("rmmod", "rmmod", module, (char *)NULL);
		_exit(127);
	}
	while (now_s() < end) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
		usleep(50000);
	}
	printf("# rmmod %s still running after %.0f s\n", module, secs);
	return -1;
}

static int loaded;

/* Stop and reap the children, unload fifo; @report: as a TAP line. */
static void teardown(int report)
{
	int i, ret, left = 0;

	if (stop)
		*stop = 1;
	for (i = 0; i < NR_TASKS; i++)
		if (!reap_pid(&pids[i], 3, NULL))
			kill(pids[i], SIGKILL);
	for (i = 0; i < NR_TASKS; i++)
		if (!reap_pid(&pids[i], 2, NULL))
			left++;
	if (left)
		printf("# %d children did not exit after SIGKILL\n", left);
	if (loaded) {
		loaded = 0;
		/* rmmod moves lost tasks back to fair, where they can die. */
		ret = rmmod_by("saakm_fifo", 30);
		if (report)
			TAP_CHECK(ret == 0, "rmmod saakm_fifo");
		for (i = 0; i < NR_TASKS; i++)
			if (!reap_pid(&pids[i], 5, NULL))
				printf("# child %d still not reaped\n", pids[i]);
	}
	memset(pids, 0, sizeof(pids));
}

/* atexit: after an early return, clean up without more TAP lines. */
static void cleanup(void)
{
	teardown(0);
}

int main(void)
{
	long long r[3][NR_TASKS];
	int i, w, ret, refused = 0, stuck = 0;

	if (nr_cpus() < 2 || !smt_pair()) {
		tap_skip("core scheduling keeps SaaKM tasks running",
			 "CPUs 0 and 1 are not SMT siblings (run by host test saakm_core_sched)");
		return tap_done();
	}
	/* A throwaway child tells whether the kernel has core scheduling. */
	pids[0] = fork();
	if (pids[0] == 0)
		_exit(-do_cookie());
	waitpid(pids[0], &ret, 0);
	pids[0] = 0;	/* reaped */
	if (!WIFEXITED(ret) || WEXITSTATUS(ret)) {
		tap_skip("core scheduling keeps SaaKM tasks running",
			 "PR_SCHED_CORE_CREATE failed: %s", strerror(WEXITSTATUS(ret)));
		return tap_done();
	}

	stop_init();
	rep = shared_mem(sizeof(*rep) * NR_TASKS);
	atexit(cleanup);

	policy = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	loaded = policy > 0;
	TAP_CHECK(policy > 0, "fifo loaded");
	if (policy <= 0)
		return tap_done();

	for (i = 0; i < NR_TASKS; i++)
		pids[i] = spawn(child, i);
	for (i = 0; i < NR_TASKS; i++) {
		double end = now_s() + 10;

		while (!rep[i].ready && now_s() < end)
			usleep(10000);
	}
	for (i = 0; i < NR_TASKS; i++) {
		printf("# task %d: cpu %d %s, cookie %s, join %s\n", pids[i],
		       i / NR_PER_CPU, kind_name[i % NR_PER_CPU],
		       i % NR_PER_CPU == FIFO_PLAIN ? "-" : strerror(-rep[i].cookie_err),
		       i % NR_PER_CPU == FAIR_COOKIE ? "-" : strerror(-rep[i].join_err));
		if (!rep[i].ready)
			stuck++;
	}
	TAP_CHECK(!stuck, "every task started within 10 s");
	for (i = 0; i < NR_TASKS; i++) {
		if (i % NR_PER_CPU != FIFO_PLAIN && rep[i].cookie_err) {
			tap_not_ok("cookies created", "task %d: %s", pids[i],
				   strerror(-rep[i].cookie_err));
			return tap_done();
		}
		/* The class may refuse cookie'd tasks, with a clear errno. */
		if (i % NR_PER_CPU == FIFO_COOKIE && rep[i].join_err)
			refused++;
	}
	TAP_CHECK(!rep[FIFO_PLAIN].join_err && !rep[NR_PER_CPU + FIFO_PLAIN].join_err,
		  "plain spinners joined fifo");
	if (refused)
		printf("# the class refused %d cookie'd task(s): %s\n", refused,
		       strerror(-rep[FIFO_COOKIE].join_err));

	sleep(1);
	for (w = 0; w < 3; w++) {
		if (w)
			sleep(5);
		for (i = 0; i < NR_TASKS; i++)
			r[w][i] = task_runtime_ns(pids[i]);
	}
	for (i = 0; i < NR_TASKS; i++) {
		int k = i % NR_PER_CPU;
		char desc[128];

		if (k == FAIR_COOKIE || rep[i].join_err)
			continue;
		printf("# task %d (cpu %d %s): %.0f ms then %.0f ms of CPU in two 5 s windows\n",
		       pids[i], i / NR_PER_CPU, kind_name[k], (r[1][i] - r[0][i]) / 1e6,
		       (r[2][i] - r[1][i]) / 1e6);
		snprintf(desc, sizeof(desc), "cpu %d %s spinner keeps running", i / NR_PER_CPU,
			 kind_name[k]);
		if (r[0][i] >= 0 && r[1][i] > r[0][i] && r[2][i] > r[1][i])
			tap_ok(desc);
		else
			tap_not_ok(desc, "task %d runtime %lld -> %lld -> %lld ns", pids[i],
				   r[0][i], r[1][i], r[2][i]);
	}
	TAP_CHECK(policy_enabled("fifo"),
		  "fifo still enabled");
	teardown(1);
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
