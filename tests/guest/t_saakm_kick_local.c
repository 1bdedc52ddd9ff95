// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeup preemption on the waker's own CPU costs no interrupt. Two tasks
 * of the eevdf port, pinned to one CPU, ping-pong a byte over two pipes.
 * At a wakeup that makes the woken task the pick, the port's
 * unblock_place() kicks its own CPU with SAAKM_KICK_PREEMPT, as fair.c
 * calls resched_curr() there.
 *
 * A tick that lands between a kick and the switch already puts the waker
 * back, and preempt() then has nothing to do. How many ticks land there
 * depends on how slow the kernel is (seven times more on the debug kernel),
 * so the checks are per kick, counted by a kprobe on saakm_kick_cpu(), and
 * allow for the ticks, rather than per round trip:
 *   - the round trips complete, and at least half of them kicked (else
 *     the behaviour under test was not exercised);
 *   - the port's preempt() ran for every kick but those that a tick took
 *     first (at most one per tick);
 *   - the waker was switched out (an involuntary switch) for at least 95
 *     in 100 kicks: preempt() sees the waker charged for all its time and
 *     puts it back, where a waker charged only up to its last tick would
 *     keep the CPU, block in read() and need one more wakeup;
 *   - at most one wakeup per round trip, plus one per round trip that did
 *     not kick, plus 5% (that same defect made 31,065 wakeups for 20,000
 *     round trips);
 *   - the CPU took fewer than one irq_work interrupt per 10 preempt()
 *     calls: the class carries out a kick from a placement when the
 *     callback returns, not by a self-IPI (which cost one interrupt per
 *     call).
 */
#include "saakm_test.h"

SAAKM_TAG("timeout=120");

#define ROUNDS		20000
#define EEVDF_KO	"policies/eevdf/saakm_eevdf.ko"

static int loaded_here;

/* Every kick the port makes; in this test, nearly all from its wakeups. */
static const char * const probe_name[] = { "saakm_kick_local_kick" };
static const char * const probe_sym[] = { "saakm_kick_cpu" };
static struct kprobes probes = { .n = 1, .name = probe_name, .sym = probe_sym };

static void cleanup(void)
{
	kprobes_remove(&probes);
	if (loaded_here && module_loaded("saakm_eevdf"))
		unload_module_within("saakm_eevdf", 10, NULL);
}

/* The irq_work interrupts ("IWI") @cpu has taken, or -1. */
static long long iwi_count(int cpu)
{
	char line[4096], want[16];
	long long n = -1;
	int col = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "CPU%d", cpu);
	if (fgets(line, sizeof(line), f)) {	/* header: online CPUs only */
		int i = 0;

		for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n"), i++)
			if (!strcmp(tok, want))
				col = i;
	}
	while (col >= 0 && fgets(line, sizeof(line), f)) {
		char *tok = strtok(line, " \t\n");

		if (!tok || strcmp(tok, "IWI:"))
			continue;
		for (int i = 0; i <= col && tok; i++)
			tok = strtok(NULL, " \t\n");
		if (tok)
			n = atoll(tok);
		break;
	}
	fclose(f);
	return n;
}

/* Context switches so far, all CPUs ("ctxt" in /proc/stat), or -1. */
static long long ctxt_count(void)
{
	char line[256];
	long long n = -1;
	FILE *f = fopen("/proc/stat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %lld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

int main(void)
{
	int cpu = nr_cpus() - 1, ok;
	long long iwi0, iwi1, pre0, pre1, cs0, cs1, wk0, wk1, k0 = -1, k1 = -1;
	long long tk0, tk1, inv_fair = -1, inv, kicks, pre, wk, ticks;
	int id;

	TAP_CHECK(ping_pong(ROUNDS, cpu, NULL, 0, &inv_fair), "20000 round trips on one CPU in the fair class");
	printf("# fair class: %lld involuntary switches\n", inv_fair);
	id = load_policy("eevdf", EEVDF_KO, NULL);
	TAP_CHECK(id > 0, "eevdf port loaded");
	if (id <= 0)
		return tap_done();
	loaded_here = 1;
	atexit(cleanup);
	TAP_CHECK(kprobes_add(&probes) == 0, "a kprobe on saakm_kick_cpu()");

	iwi0 = iwi_count(cpu);
	pre0 = event_count("eevdf", "preempt");
	wk0 = event_count("eevdf", "unblock_place");
	tk0 = event_count("eevdf", "tick");
	cs0 = ctxt_count();
	kprobes_hits(&probes, &k0);
	ok = ping_pong(ROUNDS, cpu, enter_policy, id, &inv);
	kprobes_hits(&probes, &k1);
	iwi1 = iwi_count(cpu);
	pre1 = event_count("eevdf", "preempt");
	wk1 = event_count("eevdf", "unblock_place");
	tk1 = event_count("eevdf", "tick");
	cs1 = ctxt_count();
	kicks = k1 - k0;
	pre = pre1 - pre0;
	wk = wk1 - wk0;
	ticks = tk1 - tk0;

	TAP_CHECK(ok, "20000 round trips on one CPU under the eevdf port");
	printf("# cpu %d: kicks %lld, preempt() %lld, tick() %lld, wakeups %lld, involuntary switches %lld, irq_work interrupts %lld, context switches %lld, for %d round trips\n",
	       cpu, kicks, pre, ticks, wk, inv, iwi1 - iwi0, cs1 - cs0, ROUNDS);
	print_events("eevdf");
	TAP_CHECK(iwi0 >= 0 && pre0 >= 0 && wk0 >= 0 && tk0 >= 0 && k0 >= 0 && k1 >= 0,
		  "IWI, kick, preempt, tick and wakeup counts readable");
	if (kicks >= ROUNDS / 2)
		tap_ok("a wakeup kicked in at least half the round trips");
	else
		tap_not_ok("a wakeup kicked in at least half the round trips",
			   "%lld kicks", kicks);
	if (kicks > 0 && pre + ticks >= kicks)
		tap_ok("preempt() ran for every kick but those a tick took first");
	else
		tap_not_ok("preempt() ran for every kick but those a tick took first",
			   "%lld for %lld kicks, with %lld ticks", pre, kicks, ticks);
	if (kicks > 0 && inv * 100 >= kicks * 95)
		tap_ok("the waker was switched out for at least 95 in 100 kicks");
	else
		tap_not_ok("the waker was switched out for at least 95 in 100 kicks",
			   "%lld involuntary switches for %lld kicks", inv, kicks);
	if (wk <= ROUNDS + (ROUNDS - kicks) + ROUNDS / 20)
		tap_ok("a wakeup per round trip, one more per round trip without a kick, 1 in 20 spare");
	else
		tap_not_ok("a wakeup per round trip, one more per round trip without a kick, 1 in 20 spare",
			   "%lld wakeups, %lld kicks", wk, kicks);
	if (pre > 0 && (iwi1 - iwi0) * 10 < pre)
		tap_ok("fewer than one irq_work interrupt per 10 preempt() calls");
	else
		tap_not_ok("fewer than one irq_work interrupt per 10 preempt() calls",
			   "%.2f per call", pre > 0 ? (double)(iwi1 - iwi0) / pre : 0);
	kprobes_remove(&probes);
	TAP_CHECK(unload_module_within("saakm_eevdf", 10, NULL) == 0, "eevdf port unloads");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
