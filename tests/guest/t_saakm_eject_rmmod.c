// SPDX-License-Identifier: GPL-2.0
/*
 * rmmod racing an ejection. Round after round, faulty
 * with fault=never_pick and a 100 ms stall timeout gets 8 spinners, the
 * fault is armed, and the module is unloaded about when the class ejects
 * it: the delay starts at 150 ms and moves earlier after a round where the
 * ejection came first (its error is logged), later otherwise, by 1 ms (more
 * while it stays on one side), with up to 2 ms of jitter, so the unloads
 * keep landing around the ejection.
 * Every unload must return, every spinner must be back under SCHED_NORMAL
 * and finish. The use-after-free this catches (the eject work queued after
 * the unload's last flush) shows as a KASAN report on the debug kernel,
 * which the runner turns into a failure; on the normal kernel, as a crash
 * or a hang. It is a race: a run without a report is no proof, and a run
 * where one side always won did not test it, so both outcomes must occur.
 *
 * SAAKM_EJECT_ROUNDS sets the number of rounds: 30 in make test, which
 * reaches the moment of the ejection and straddles it; in make test-full
 * 100, and 500 in the debug pass, for the race's many interleavings.
 */
#include "saakm_test.h"
#include <signal.h>

SAAKM_TAG("timeout=600");

#define NR_SPIN		8
#define FAULTY		"tests/modules/saakm_faulty/saakm_faulty.ko"
#define UNLOAD_LIMIT_S	20

static pid_t w[NR_SPIN];

static void cleanup(void)
{
	*stop = 1;
	for (int i = 0; i < NR_SPIN; i++)
		if (w[i] > 0)
			kill(w[i], SIGKILL);
	reap_all_within(w, NR_SPIN, 5, NULL);
	if (module_loaded("saakm_faulty"))
		unload_module_within("saakm_faulty", UNLOAD_LIMIT_S, NULL);
}

/* Kernel log records since the last call: is there "policy faulty (id @id) error"? */
static int ejection_logged(int fd, int id)
{
	char rec[1024], want[64];
	int found = 0;
	ssize_t n;

	snprintf(want, sizeof(want), "policy faulty (id %d) error", id);
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		found |= strstr(rec, want) != NULL;
	}
	return found;
}

/*
 * One round, the unload @delay_us after arming; 0 if it went well, else a
 * message in @why. *@ejected tells whether the ejection won (was logged)
 * before the unload stopped it.
 */
static int one_round(long delay_us, int kmsg, int *ejected, double *unload_s,
		     char *why, size_t len)
{
	int id, ret, normal = 0, finished, exited;
	char state[32] = "";

	lseek(kmsg, 0, SEEK_END);
	ret = module_load(FAULTY, "fault=never_pick timeout_ms=100");
	id = policy_id("faulty");
	if (ret || id <= 0) {
		snprintf(why, len, "insmod saakm_faulty: %s", strerror(-ret));
		return -1;
	}
	*stop = 0;
	for (int i = 0; i < NR_SPIN; i++) {
		w[i] = spawn(spinner_normal, 0);
		if (w[i] < 0 || saakm_join(w[i], id, 0)) {
			snprintf(why, len, "spinner %d did not join faulty", i);
			return -1;
		}
	}
	write_file("/sys/module/saakm_faulty/parameters/armed", "1");
	usleep(delay_us);
	policy_state("faulty", state, sizeof(state));
	ret = unload_module_within("saakm_faulty", UNLOAD_LIMIT_S, unload_s);
	*ejected = ejection_logged(kmsg, id);
	if (ret) {
		snprintf(why, len, "rmmod saakm_faulty (policy %s, delay %ld us): %s after %.1f s",
			 state, delay_us, ret == -ETIMEDOUT ? "still running" : strerror(-ret),
			 *unload_s);
		return -1;
	}
	for (int i = 0; i < NR_SPIN; i++)
		normal += sched_getscheduler(w[i]) == SCHED_OTHER;
	*stop = 1;
	finished = reap_all_within(w, NR_SPIN, 10, &exited);
	if (normal != NR_SPIN || finished != NR_SPIN) {
		snprintf(why, len, "after rmmod (policy was %s, delay %ld us): %d of %d spinners in SCHED_NORMAL; %d exited within 10 s, %d of them under SCHED_NORMAL",
			 state, delay_us, normal, NR_SPIN, exited, finished);
		return -1;
	}
	return 0;
}

int main(void)
{
	int rounds = tier_size("SAAKM_EJECT_ROUNDS", 30, debug_pass() ? 500 : 100);
	int done = 0, nr_ejected = 0, kmsg;
	long delay_us = 150000, step = 1000;
	int last = -1;
	double t0, worst = 0;
	char why[256] = "";

	stop_init();
	atexit(cleanup);
	if (module_loaded("saakm_faulty"))
		unload_module_within("saakm_faulty", UNLOAD_LIMIT_S, NULL);

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	srand(getpid());
	t0 = now_s();
	while (done < rounds) {
		double secs = 0;
		int ejected = 0;

		if (one_round(delay_us + rand() % 2000, kmsg, &ejected, &secs, why, sizeof(why)))
			break;
		/*
		 * Home in on the moment the ejection comes: earlier if it won,
		 * later if not, with steps that double while on the same side.
		 */
		step = ejected == last ? (step < 16000 ? 2 * step : step) : 1000;
		last = ejected;
		delay_us += ejected ? -step : step;
		if (delay_us < 20000)
			delay_us = 20000;
		if (delay_us > 400000)
			delay_us = 400000;
		nr_ejected += ejected;
		if (secs > worst)
			worst = secs;
		done++;
	}
	printf("# %d of %d rounds in %.1f s; the ejection came first in %d; last delay %ld ms; slowest rmmod %.0f ms\n",
	       done, rounds, now_s() - t0, nr_ejected, delay_us / 1000, worst * 1000);
	if (done == rounds)
		tap_ok("rmmod racing an ejection: every unload returns, no spinner lost");
	else
		tap_not_ok("rmmod racing an ejection: every unload returns, no spinner lost",
			   "round %d: %s", done + 1, why);
	if (nr_ejected > 0 && nr_ejected < done)
		tap_ok("both outcomes occurred: the ejection first, and the unload first");
	else
		tap_not_ok("both outcomes occurred: the ejection first, and the unload first",
			   "the ejection came first in %d of %d rounds", nr_ejected, done);
	return tap_done();
}
