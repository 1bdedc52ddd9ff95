// SPDX-License-Identifier: GPL-2.0
/*
 * Idle time does not make the class's deadline server run.
 *
 * Each CPU has a SCHED_DEADLINE server that runs SaaKM tasks when RT or
 * deadline tasks starve them (saakm.c). It is deferred, as the fair class's
 * is: if SaaKM tasks use its runtime (50 ms) by themselves, its period
 * starts again; if they have not by its zero-laxity point, the server gets
 * on the runqueue and runs them. The fair class counts idle time as runtime
 * its server did not need; the class did not count it for its own. So when
 * SaaKM tasks slept most of a period, the server got on the runqueue with
 * them, and from then on every sleep stopped it (the core picked it on the
 * idle CPU and it found nothing) and every wakeup started it again, until
 * they had run 50 ms: in a 2-CPU ping-pong, a dl_server_start() per
 * wakeup and 2,700 more instructions per round trip, +18%
 * (docs/benchmarks.md, "The deadline server and idle time").
 *
 * RUNS times: the ends of a ping-pong, one on each CPU, join the FIFO
 * policy, run 60 ms and sleep 0.94 s (see enter_and_idle()), then make
 * ROUNDS round trips; a kprobe counts dl_server_start() (the stop is
 * inlined). Before the fix: 5,710 to 6,951 calls per run. The control:
 * the ends write server_runtime_us once they joined, which stops their
 * CPUs' servers and starts them again; the probe counts those starts.
 */
#include "saakm_test.h"

SAAKM_TAG("timeout=120");
/*
 * In the icount pass only (tests/all.sh): whether the round trips reach the
 * zero-laxity point depends on how much CPU time they take per unit of
 * guest time. With the icount clock, that is the same on every host; in a
 * plain TCG guest the old code passed it too (at most 379 calls in a run,
 * in 6 runs).
 */
SAAKM_TAG("opt-in");

#define RUNS		3
#define ROUNDS		4000
#define FIFO_KO		"policies/fifo/saakm_fifo.ko"
#define RUNTIME_US	"/sys/kernel/saakm/server_runtime_us"

static const char * const probe_name[] = { "saakm_server_start" };
static const char * const probe_sym[] = { "dl_server_start" };
static struct kprobes probes = { .n = 1, .name = probe_name, .sym = probe_sym };
static char runtime_us[32];

static void cleanup(void)
{
	if (runtime_us[0])
		write_file(RUNTIME_US, runtime_us);
	if (module_loaded("saakm_fifo"))
		unload_module_within("saakm_fifo", 10, NULL);
	kprobes_remove(&probes);
}

/*
 * ping_pong()'s @enter: join policy @id, run 60 ms (the server's period
 * starts again once SaaKM tasks used its 50 ms runtime), then sleep 0.94 s:
 * the round trips that follow reach the zero-laxity point of a period in
 * which SaaKM tasks used 10 ms, and would have to use 40 ms more before it.
 */
static int enter_and_idle(long id)
{
	int ret = enter_policy(id);
	long long end = thread_cpu_ns() + 60 * 1000000LL;

	if (ret)
		return ret;
	while (thread_cpu_ns() < end)
		;
	usleep(940 * 1000);
	return 0;
}

/* ROUNDS round trips after that; 1 if both ends finished. */
static int ping_pong_after_idle(long id)
{
	return ping_pong(ROUNDS, PING_PONG_SPREAD, enter_and_idle, id, NULL);
}

/* ping_pong()'s @enter for the control: join, then rewrite the server's runtime. */
static int enter_and_rewrite(long id)
{
	int ret = enter_policy(id);

	return ret ? ret : write_file(RUNTIME_US, runtime_us);
}

/* dl_server_start() calls while @run(@id) runs; or -1. */
static long long starts_during(int (*run)(long), long id)
{
	long long h0, h1;

	if (kprobes_hits(&probes, &h0) || !run(id) || kprobes_hits(&probes, &h1))
		return -1;
	return h1 - h0;
}

/* ROUNDS round trips whose ends join @id, then rewrite the runtime. */
static int ping_pong_rewriting(long id)
{
	return ping_pong(ROUNDS, PING_PONG_SPREAD, enter_and_rewrite, id, NULL);
}

int main(void)
{
	long long starts, total = 0;
	int id;

	atexit(cleanup);
	TAP_CHECK(read_first_line(RUNTIME_US, runtime_us, sizeof(runtime_us)) == 0,
		  "the server's runtime read");
	TAP_CHECK(kprobes_add(&probes) == 0, "a kprobe on dl_server_start()");
	id = load_policy("fifo", FIFO_KO, NULL);
	TAP_CHECK(id > 0, "fifo loaded");

	for (int i = 0; i < RUNS && total >= 0; i++) {
		starts = starts_during(ping_pong_after_idle, id);
		printf("# run %d: %lld dl_server_start() calls in %d round trips\n", i, starts, ROUNDS);
		total = starts < 0 ? -1 : total + starts;
	}
	TAP_CHECK(total >= 0 && total <= RUNS * ROUNDS / 20,
		  "at most one round trip in 20 starts the server");

	starts = starts_during(ping_pong_rewriting, id);
	printf("# the same, the ends rewriting the runtime: %lld calls\n", starts);
	TAP_CHECK(starts >= 1, "control: the probe counts the starts a runtime write makes");

	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
