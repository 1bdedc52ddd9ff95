// SPDX-License-Identifier: GPL-2.0
/*
 * The safety net also sees tasks a policy lost outside READY. For each saakm_faulty mode that drops a runnable task without
 * a refused transition (drop_in_schedule, block_in_tick), moves one to
 * TERMINATED from a callback other than terminate() (terminate_in in=tick,
 * schedule, block), or leaves two tasks RUNNING on one CPU (two_running),
 * with 8 spinners and 8 sleepers attached: the policy is
 * ejected within its 1 s stall timeout plus 1 s, and every task is back
 * under SCHED_NORMAL and finishes. Every wait is bounded: a lost task fails
 * the test, and unloading the module then rescues it.
 */
#include "saakm_test.h"
#include <signal.h>

SAAKM_TAG("timeout=300");

#define TIMEOUT_MS	1000
#define NR_SPIN		8
#define NR_SLEEP	8
#define NR_W		(NR_SPIN + NR_SLEEP)

static pid_t w[NR_W];
static char old_timeout[32];

static void kill_workers(void)
{
	*stop = 1;
	for (int i = 0; i < NR_W; i++)
		if (w[i] > 0)
			kill(w[i], SIGKILL);
	reap_all_within(w, NR_W, 5, NULL);
}

static void cleanup(void)
{
	kill_workers();
	if (module_loaded("saakm_faulty"))
		unload_module_within("saakm_faulty", 20, NULL);
	if (old_timeout[0])
		write_file("/sys/kernel/saakm/watchdog_timeout_ms", old_timeout);
}

static void one_mode(const char *fault, const char *in)
{
	char params[128], name[64], desc[192], reason[256] = "", state[32] = "?";
	int id, joined = 0, normal = 0, exited, finished, left, ret;
	long ms;

	snprintf(name, sizeof(name), "%s%s%s", fault, *in ? "@" : "", in);
	snprintf(params, sizeof(params), "fault=%s in=%s timeout_ms=%d", fault,
		 *in ? in : "none", TIMEOUT_MS);
	ret = module_load("tests/modules/saakm_faulty/saakm_faulty.ko", params);
	id = policy_id("faulty");
	snprintf(desc, sizeof(desc), "%s: faulty loaded", name);
	if (ret || id <= 0) {
		tap_not_ok(desc, "insmod: %s", strerror(-ret));
		return;
	}
	tap_ok(desc);

	*stop = 0;
	for (int i = 0; i < NR_W; i++) {
		w[i] = i < NR_SPIN ? spawn(spinner_normal, 0) : spawn(sleeper_normal, 2000);
		joined += w[i] > 0 && saakm_join(w[i], id, 0) == 0;
	}
	snprintf(desc, sizeof(desc), "%s: %d tasks joined", name, NR_W);
	TAP_CHECK(joined == NR_W, desc);
	usleep(200000);
	write_file("/sys/module/saakm_faulty/parameters/armed", "1");

	ms = wait_ejected("faulty", reason, sizeof(reason), TIMEOUT_MS + 3000);
	policy_state("faulty", state, sizeof(state));
	printf("# %s: ejected after %ld ms (state %s): %s\n", name, ms, state, reason);
	snprintf(desc, sizeof(desc), "%s: ejected within timeout + 1 s", name);
	if (ms >= 0 && ms <= TIMEOUT_MS + 1000 &&
	    !strcmp(state, saakm_policy_state_names[SAAKM_POLICY_EJECTED]))
		tap_ok(desc);
	else if (ms < 0)
		tap_not_ok(desc, "not ejected %d ms after arming, state %s",
			   TIMEOUT_MS + 3000, state);
	else
		tap_not_ok(desc, "ejected after %ld ms, state %s", ms, state);

	/* The drain hands every task back to SCHED_NORMAL. */
	wait_drained("faulty", 5);
	left = policy_tasks("faulty");
	for (int i = 0; i < NR_W; i++)
		normal += sched_getscheduler(w[i]) == SCHED_OTHER;
	snprintf(desc, sizeof(desc), "%s: all tasks back in SCHED_NORMAL", name);
	if (left == 0 && normal == NR_W)
		tap_ok(desc);
	else
		tap_not_ok(desc, "%d tasks still attached, %d of %d in SCHED_NORMAL",
			   left, normal, NR_W);

	*stop = 1;
	finished = reap_all_within(w, NR_W, 5, &exited);
	snprintf(desc, sizeof(desc), "%s: every task finishes under SCHED_NORMAL", name);
	if (finished == NR_W)
		tap_ok(desc);
	else
		tap_not_ok(desc, "%d of %d exited within 5 s, %d of them under SCHED_NORMAL",
			   exited, NR_W, finished);

	/* Unloading also rescues tasks the policy lost, if it was not ejected. */
	ret = unload_module_within("saakm_faulty", 20, NULL);
	snprintf(desc, sizeof(desc), "%s: rmmod returns", name);
	TAP_CHECK(ret == 0, desc);
	kill_workers();
}

int main(void)
{
	FILE *f = fopen("/sys/kernel/saakm/watchdog_timeout_ms", "r");
	char val[16];

	if (f && fgets(old_timeout, sizeof(old_timeout), f))
		old_timeout[strcspn(old_timeout, "\n")] = 0;
	if (f)
		fclose(f);
	stop_init();
	atexit(cleanup);
	snprintf(val, sizeof(val), "%d", TIMEOUT_MS);
	TAP_CHECK(write_file("/sys/kernel/saakm/watchdog_timeout_ms", val) == 0,
		  "watchdog timeout set to 1 s");

	one_mode("drop_in_schedule", "");
	one_mode("block_in_tick", "");
	one_mode("terminate_in", "tick");
	one_mode("terminate_in", "schedule");
	one_mode("terminate_in", "block");
	one_mode("two_running", "");
	return tap_done();
}
