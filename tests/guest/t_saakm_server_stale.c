// SPDX-License-Identifier: GPL-2.0
/*
 * The idle time the class passes to its deadline server is idle time, also
 * after a while with no policy registered.
 *
 * A CPU's idle flag and the clock stamp of its last idle entry
 * (saakm_set_idle()) are kept only while some policy is registered. Before
 * the fix, a CPU that went idle under one policy and then ran fair tasks
 * after the last policy unregistered kept both: when a task of the next
 * policy woke there, all the time since that stamp, busy time included,
 * went to the server as idle time, and the server counted it
 * as runtime it had not needed to give (so, for up to a period, no
 * guarantee under RT load).
 *
 * ROUNDS times, on CPU 1: FIFO registered, a fair task comes and goes (CPU
 * 1 goes idle, at least until something of the unregistration runs there);
 * FIFO unregisters; a fair task spins there for BUSY_S; FIFO registers
 * again and a FIFO task joins there behind the spinner; once the spinner
 * ends, the FIFO task naps NAPS times for NAP_MS. The tracepoint
 * saakm:saakm_server_idle records the idle time CPU 1 passes to the
 * server. Checks: some was passed, and never more than 1 s at once (the
 * longest idle stretch there is a nap). Before the fix, the first round
 * passed 1.26 s at once, all the time since the visit (3 runs of 3).
 */
#include "saakm_test.h"

SAAKM_TAG("timeout=120");

#define CPU		1
#define ROUNDS		4
#define BUSY_S		1.2
#define NAPS		20
#define NAP_MS		20
#define LIMIT_NS	1000000000LL
#define FIFO_KO		"policies/fifo/saakm_fifo.ko"

#define EVENT		TRACING_DIR "/events/saakm/saakm_server_idle/enable"

static int mounted;
static volatile int *spun;	/* shared: set when the spinner ends */

static void cleanup(void)
{
	write_file(EVENT, "0");
	if (mounted)
		umount(TRACING_DIR);
}

/* Run on CPU and leave: CPU goes idle right after, with FIFO registered. */
static int visit(long unused)
{
	return pin_to(0, CPU) ? 1 : 0;
}

/* A fair task that keeps CPU busy for BUSY_S. */
static int busy(long unused)
{
	if (pin_to(0, CPU))
		return 1;
	spin_for(BUSY_S);
	*spun = 1;
	return 0;
}

/*
 * A FIFO task on CPU: joins behind the spinner and, once it ended, naps
 * NAPS times. (While the spinner runs, the server runs this task and
 * CPU does not go idle.)
 */
static int napper(long id)
{
	if (pin_to(0, CPU) || saakm_join(0, id, 0) || !wait_flag(spun, 10))
		return 1;
	for (int i = 0; i < NAPS; i++)
		usleep(NAP_MS * 1000);
	return 0;
}

/* The largest idle time passed on CPU, and how many times: 0, or -1. */
static int max_idle(long long *max, int *calls)
{
	char line[512];
	FILE *f = fopen(TRACING_DIR "/trace", "r");
	long long ns;
	int cpu;

	*max = -1;
	*calls = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *c = strstr(line, "saakm_server_idle: ");

		if (!c || sscanf(c, "saakm_server_idle: cpu=%d idle_ns=%lld", &cpu, &ns) != 2 ||
		    cpu != CPU)
			continue;
		(*calls)++;
		if (ns > *max)
			*max = ns;
	}
	fclose(f);
	return 0;
}

/*
 * One round of the sequence at the top; returns the largest idle time passed
 * on CPU after FIFO's second registration, -1 if a step failed.
 */
static long long one_round(int round)
{
	long long max;
	pid_t spinner;
	int id, calls;

	*spun = 0;
	id = load_policy("fifo", FIFO_KO, NULL);
	if (id <= 0 || !reaped_ok(spawn(visit, 0)))
		return -1;
	usleep(100 * 1000);
	if (unload_module_within("saakm_fifo", 10, NULL))
		return -1;
	spinner = spawn(busy, 0);
	usleep(200 * 1000);
	id = load_policy("fifo", FIFO_KO, NULL);
	if (id <= 0 || write_file(TRACING_DIR "/trace", ""))
		return -1;
	if (!reaped_ok(spawn(napper, id)) || !reaped_ok(spinner) ||
	    max_idle(&max, &calls) || unload_module_within("saakm_fifo", 10, NULL))
		return -1;
	printf("# round %d: CPU %d passed idle time to the server %d times, at most %lld ns\n",
	       round, CPU, calls, max);
	return max;
}

int main(void)
{
	long long max = 0, m;
	int r;

	require_cpus(2, "a CPU that idles apart from the test");
	atexit(cleanup);
	spun = shared_mem(sizeof(*spun));
	TAP_CHECK(pin_to(0, 0) == 0, "the test runs on CPU 0");
	if (access(EVENT, F_OK) && !mount("nodev", TRACING_DIR, "tracefs", 0, NULL))
		mounted = 1;
	TAP_CHECK(write_file(EVENT, "1") == 0, "tracepoint saakm:saakm_server_idle enabled");

	for (r = 1; r <= ROUNDS && (m = one_round(r)) >= 0; r++)
		max = m > max ? m : max;
	TAP_CHECK(r > ROUNDS, "each round: FIFO in and out, the spinner, the naps");
	TAP_CHECK(max > 0, "idle time passed to the server of CPU 1");
	if (max <= LIMIT_NS)
		tap_ok("never more than 1 s of idle time at once");
	else
		tap_not_ok("never more than 1 s of idle time at once",
			   "%.2f s, while the CPU was busy for %.1f s", max / 1e9, BUSY_S);
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
