// SPDX-License-Identifier: GPL-2.0
/*
 * A registered policy with no task costs fair tasks nothing on the core's
 * pick paths.
 *
 * 1. The core's __pick_next_task() calls fair's pick directly when every
 *    task on the runqueue is fair. The class used to send each pick down
 *    the full class loop instead while any policy had newly_idle or
 *    balancing_select, so that SaaKM's balance() could pull before a CPU
 *    idles: EEVDF lost 3.3% on pipe_1cpu with wfq loaded and no task in
 *    it. Now the full loop runs only when fair has nothing to run.
 * 2. Then, and when a CPU leaves idle, the class's balance_saakm() and
 *    saakm_pick_only() ran while no policy had a task: EEVDF lost 4% on a
 *    2-CPU pipe with the eevdf port loaded. Now they run only while some
 *    policy has a task; and the tick raises no periodic balancing
 *    (saakm_balance_workfn(), an irq_work) for a policy with no task.
 * 3. Each idle entry and exit walked the policies (saakm_update_idle())
 *    for enter_idle()/exit_idle(), which the eevdf port does not have:
 *    EEVDF's 2-CPU pipe still lost 2.8% with the port loaded. Now the
 *    walk runs only while some policy has one of them (wfq does).
 *
 * Kprobes count the calls (tracing/kprobe_profile): pick_task_rt(), which
 * only the full loop calls, and the four class functions. wfq is loaded
 * with balance_ms=1, so that its periodic balancing is due at every tick.
 * A ping-pong of two tasks makes two picks per round trip:
 *   - as SCHED_FIFO tasks on one CPU, every pick takes the full loop, and
 *     as wfq tasks on two CPUs, each CPU balances before it idles and at
 *     ticks (the controls: they show the probes count);
 *   - as fair tasks, with no policy and then with wfq registered, at most
 *     one pick in 20 may take the full loop (before fix 1: every pick with
 *     wfq), and on two CPUs, at most one round trip in 10 may call
 *     balance_saakm() or saakm_pick_only() (before fix 2: nearly two calls
 *     of each per round trip), and no periodic balancing runs; the idle
 *     walk runs with wfq registered, and not with the eevdf port (before
 *     fix 3: nearly four times per round trip).
 */
#include "saakm_test.h"

SAAKM_TAG("timeout=120");

#define ROUNDS		5000
#define WFQ_KO		"policies/wfq/saakm_wfq.ko"
#define WFQ_PARAMS	"balance_ms=1"
#define EEVDF_KO	"policies/eevdf/saakm_eevdf.ko"

/* The kprobes: the full class loop; the class's balance, idle pick, tick balance, idle walk. */
#define PROBES(X)						\
	X(FULL_LOOP, "saakm_fastpath_rt", "pick_task_rt")	\
	X(BALANCE, "saakm_fastpath_bal", "balance_saakm")	\
	X(PICK_ONLY, "saakm_fastpath_pick", "saakm_pick_only")	\
	X(BALANCE_WORK, "saakm_fastpath_work", "saakm_balance_workfn")	\
	X(IDLE_WALK, "saakm_fastpath_idle", "saakm_update_idle")
#define PROBE_ENUM(id, name, sym)	id,
#define PROBE_NAME(id, name, sym)	name,
#define PROBE_SYM(id, name, sym)	sym,
enum { PROBES(PROBE_ENUM) NR_PROBES };
static const char * const probe_name[] = { PROBES(PROBE_NAME) };
static const char * const probe_sym[] = { PROBES(PROBE_SYM) };

static struct kprobes probes = {
	.n = NR_PROBES, .name = probe_name, .sym = probe_sym,
};

static void cleanup(void)
{
	if (module_loaded("saakm_wfq"))
		unload_module_within("saakm_wfq", 10, NULL);
	if (module_loaded("saakm_eevdf"))
		unload_module_within("saakm_eevdf", 10, NULL);
	kprobes_remove(&probes);
}

static int enter_fifo(long prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler(0, SCHED_FIFO, &sp) ? -errno : 0;
}

/*
 * ROUNDS round trips on @cpu (or PING_PONG_SPREAD); @calls gets each
 * probe's hits during them. 0, or -1 if the run or a count failed.
 */
static int count_calls(int cpu, int (*enter)(long), long arg, long long calls[NR_PROBES])
{
	long long h0[NR_PROBES], h1[NR_PROBES];

	if (kprobes_hits(&probes, h0) || !ping_pong(ROUNDS, cpu, enter, arg, NULL) ||
	    kprobes_hits(&probes, h1))
		return -1;
	printf("# %d round trips:", ROUNDS);
	for (int i = 0; i < NR_PROBES; i++) {
		calls[i] = h1[i] - h0[i];
		printf(" %s %lld", probe_sym[i], calls[i]);
	}
	printf("\n");
	return 0;
}

/*
 * Fair tasks, one CPU then two: the class stays off the pick paths, and
 * walks the policies at idle transitions only if @walk (one listens).
 */
static void check_fair(int cpu, int walk)
{
	long long c[NR_PROBES];

	TAP_CHECK(count_calls(cpu, NULL, 0, c) == 0 && c[FULL_LOOP] <= ROUNDS / 10,
		  "one CPU: at most one pick in 20 takes the full loop");
	TAP_CHECK(count_calls(PING_PONG_SPREAD, NULL, 0, c) == 0 &&
		  c[BALANCE] <= ROUNDS / 10 && c[PICK_ONLY] <= ROUNDS / 10 && !c[BALANCE_WORK],
		  "two CPUs: at most one round trip in 10 calls balance_saakm() or saakm_pick_only(), no periodic balancing");
	TAP_CHECK(walk ? c[IDLE_WALK] >= ROUNDS : !c[IDLE_WALK],
		  walk ? "two CPUs: the policies hear the idle transitions" :
			 "two CPUs: no walk of the policies at idle transitions");
}

int main(void)
{
	long long c[NR_PROBES];
	int cpu = nr_cpus() - 1, id;

	atexit(cleanup);
	TAP_CHECK(kprobes_add(&probes) == 0, "a kprobe on each function counted");

	tap_subtest("controls: SCHED_FIFO tasks on one CPU, wfq tasks on two");
	TAP_CHECK(count_calls(cpu, enter_fifo, 10, c) == 0 && c[FULL_LOOP] >= ROUNDS,
		  "the probe counts full-loop picks (one per round trip or more)");
	id = load_policy("wfq", WFQ_KO, WFQ_PARAMS);
	TAP_CHECK(id > 0, "wfq loaded");
	TAP_CHECK(count_calls(PING_PONG_SPREAD, enter_policy, id, c) == 0 &&
		  c[BALANCE] >= ROUNDS && c[PICK_ONLY] >= ROUNDS && c[BALANCE_WORK] > 0,
		  "the probes count balance_saakm(), saakm_pick_only() (one per round trip or more) and periodic balancing");
	TAP_CHECK(unload_module_within("saakm_wfq", 10, NULL) == 0, "wfq unloads");

	tap_subtest("fair tasks, no policy");
	check_fair(cpu, 0);

	tap_subtest("fair tasks, wfq registered with no task");
	TAP_CHECK(load_policy("wfq", WFQ_KO, WFQ_PARAMS) > 0, "wfq loaded");
	check_fair(cpu, 1);
	TAP_CHECK(unload_module_within("saakm_wfq", 10, NULL) == 0, "wfq unloads");

	tap_subtest("fair tasks, the eevdf port registered with no task");
	TAP_CHECK(load_policy("eevdf", EEVDF_KO, NULL) > 0, "the eevdf port loaded");
	check_fair(cpu, 0);
	TAP_CHECK(unload_module_within("saakm_eevdf", 10, NULL) == 0, "the eevdf port unloads");

	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
