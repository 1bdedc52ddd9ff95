/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loader of ext_fifo, the sched_ext twin of saakm_fifo (see ext_fifo.bpf.c).
 *
 *   ext_fifo [-v]
 *
 * Loads and attaches the scheduler in partial mode (only SCHED_EXT tasks),
 * prints "ext_fifo: enabled" once attached, and stays until SIGINT/SIGTERM or
 * until the kernel disables the scheduler; then prints its counters and why
 * it exited. Wait for /sys/kernel/sched_ext/state to read "enabled" rather
 * than for a fixed time.
 */
#include <stdio.h>
#include <unistd.h>
#include <signal.h>
#include <string.h>
#include <libgen.h>
#include <bpf/bpf.h>
#include <scx/common.h>
#include "ext_fifo.bpf.skel.h"
#include "../ext_loader.h"

static void read_stats(struct ext_fifo *skel, __u64 *stats)
{
	int nr_cpus = libbpf_num_possible_cpus();
	__u64 cnts[nr_cpus];
	__u32 idx;
	int cpu;

	for (idx = 0; idx < 2; idx++) {
		stats[idx] = 0;
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &idx, cnts) < 0)
			continue;
		for (cpu = 0; cpu < nr_cpus; cpu++)
			stats[idx] += cnts[cpu];
	}
}

int main(int argc, char **argv)
{
	struct ext_fifo *skel;
	struct bpf_link *link;
	__u64 ecode, stats[2];
	int opt;

	libbpf_set_print(libbpf_print_fn);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	while ((opt = getopt(argc, argv, "vh")) != -1) {
		switch (opt) {
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-v]\n"
				"sched_ext twin of saakm_fifo (partial mode: SCHED_EXT tasks only)\n",
				basename(argv[0]));
			return opt != 'h';
		}
	}
restart:
	skel = SCX_OPS_OPEN(ext_fifo_ops, ext_fifo);
	SCX_OPS_LOAD(skel, ext_fifo_ops, ext_fifo, uei);
	link = SCX_OPS_ATTACH(skel, ext_fifo_ops, ext_fifo);
	printf("ext_fifo: enabled\n");
	fflush(stdout);

	/* pause() returns on a signal; the 1 s poll notices a kernel-side exit */
	while (!exit_req && !UEI_EXITED(skel, uei))
		sleep(1);

	read_stats(skel, stats);
	printf("ext_fifo: exiting, enqueues on wakeup=%llu, elsewhere=%llu\n",
	       (unsigned long long)stats[0], (unsigned long long)stats[1]);
	bpf_link__destroy(link);
	ecode = skel->data->uei.exit_code;
	if (UEI_EXITED(skel, uei))
		printf("ext_fifo: disabled by the kernel (exit kind %d, code %lld); the reason is in the kernel log\n",
		       skel->data->uei.kind, (long long)ecode);
	ext_fifo__destroy(skel);
	if (UEI_ECODE_RESTART(ecode))
		goto restart;
	return 0;
}
