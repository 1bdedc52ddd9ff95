// SPDX-License-Identifier: GPL-2.0
/*
 * Work stealing: three CPU-bound fifo tasks placed on CPU 0 (their pids are
 * multiples of the CPU count). Without stealing they stay there; with
 * steal=1 an idle CPU pulls some of them over.
 */
#include "saakm_test.h"
#include <signal.h>
#include <sys/mman.h>

/* Start 3 spinners on fifo; return how many ran on a CPU other than 0. */
static int run_round(int id)
{
	pid_t spin[3];
	int n = 0, moved = 0;

	*stop = 0;
	/* Children forked from a fifo task are placed by fifo: pid % nr_cpus. */
	saakm_join(0, id, 0);
	while (n < 3) {
		pid_t pid = spawn(spinner, 0);

		if (pid % nr_cpus() == 0) {
			spin[n++] = pid;
		} else {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
	}
	for (int t = 0; t < 10; t++) {
		usleep(100000);
		for (int i = 0; i < 3; i++)
			if (task_cpu_of(spin[i]) > 0)
				moved |= 1 << i;
	}
	*stop = 1;
	for (int i = 0; i < 3; i++)
		reaped_ok(spin[i]);
	saakm_leave(0);
	return __builtin_popcount(moved);
}

int main(void)
{
	int id, moved;

	require_cpus(2, "work stealing");
	stop_init();

	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", "steal=0");
	TAP_CHECK(id > 0, "fifo loaded with steal=0");
	moved = run_round(id);
	printf("# steal=0: %d of 3 tasks left CPU 0\n", moved);
	TAP_CHECK(moved == 0, "without stealing, tasks placed on CPU 0 stay there");
	unload_module("saakm_fifo");

	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", "steal=1");
	TAP_CHECK(id > 0, "fifo loaded with steal=1");
	moved = run_round(id);
	printf("# steal=1: %d of 3 tasks left CPU 0\n", moved);
	TAP_CHECK(moved >= 1, "with stealing, an idle CPU pulls tasks from CPU 0");
	TAP_CHECK(event_count("fifo", "balance_pick") > 0 && event_count("fifo", "migrated") > 0,
		  "balance_pick and migrations counted");
	TAP_CHECK(unload_module("saakm_fifo") == 0, "rmmod saakm_fifo");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
