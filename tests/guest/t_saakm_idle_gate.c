// SPDX-License-Identifier: GPL-2.0
/*
 * A policy is asked newly_idle() only when a pull could find something: a
 * READY task of its own on another CPU. Before, every policy with the
 * callback was asked at every idle entry of every CPU, also with no task
 * at all: a registered eevdf port cost FIFO's pinned-apart ping-pong 162
 * guest instructions per round trip (kprof), and each sleep
 * of a task of any policy paid it.
 *
 * The eevdf port is loaded and left without tasks; two FIFO tasks on two
 * CPUs ping-pong, so each CPU goes idle at every message. Checks: the
 * round trips complete and the port's newly_idle() is never called (old
 * kernel: about two calls per round trip).
 */
#include "saakm_test.h"

SAAKM_TAG("timeout=120");

#define ROUNDS		5000
#define EEVDF_KO	"policies/eevdf/saakm_eevdf.ko"
#define FIFO_KO		"policies/fifo/saakm_fifo.ko"

int main(void)
{
	long long idle0, idle1, pick0, pick1;
	int fifo, eevdf, ok;

	require_cpus(2, "a ping-pong between two CPUs");
	eevdf = load_policy("eevdf", EEVDF_KO, NULL);
	fifo = load_policy("fifo", FIFO_KO, NULL);
	TAP_CHECK(eevdf > 0 && fifo > 0, "eevdf port and fifo loaded");
	if (eevdf <= 0 || fifo <= 0)
		return tap_done();

	idle0 = event_count("eevdf", "newly_idle");
	pick0 = event_count("fifo", "schedule");
	ok = ping_pong(ROUNDS, PING_PONG_SPREAD, enter_policy, fifo, NULL);
	idle1 = event_count("eevdf", "newly_idle");
	pick1 = event_count("fifo", "schedule");

	TAP_CHECK(ok, "5000 round trips between two CPUs under fifo");
	printf("# eevdf port (no tasks): newly_idle %lld; fifo: schedule %lld\n",
	       idle1 - idle0, pick1 - pick0);
	TAP_CHECK(pick0 >= 0 && pick1 - pick0 >= ROUNDS,
		  "fifo picked at least once per round trip");
	TAP_CHECK(idle0 >= 0 && idle1 == idle0,
		  "the port, with no task, was not asked newly_idle()");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
