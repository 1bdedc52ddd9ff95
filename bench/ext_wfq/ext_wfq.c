/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loader of ext_wfq, the sched_ext twin of saakm_wfq (see ext_wfq.bpf.c).
 *
 *   ext_wfq [-v] [-s slice_ms] [-g wakeup_gran_us] [-b balance_ms]
 *           [-m balance_max] [-w max_wait_ms]
 *
 * The options are saakm_wfq's module parameters, with its defaults and
 * ranges; a value out of range is refused, not clamped. Loads and attaches
 * the scheduler in partial mode (only SCHED_EXT tasks), prints
 * "ext_wfq: enabled" once attached, and stays until SIGINT/SIGTERM or until
 * the kernel disables the scheduler; then prints its counters and why it
 * exited. Wait for /sys/kernel/sched_ext/state to read "enabled" rather
 * than for a fixed time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <signal.h>
#include <string.h>
#include <libgen.h>
#include <bpf/bpf.h>
#include <scx/common.h>
#include "ext_wfq.bpf.skel.h"
#include "../ext_loader.h"

#define MAX_CPUS	512	/* ext_wfq.bpf.c */
#define NR_STATS	5

/* A parameter of saakm_wfq: name, option letter, range, default. */
struct param {
	const char *name;
	char opt;
	unsigned int min, max, val;
};

static struct param params[] = {
	{ "slice_ms", 's', 1, 100, 3 },
	{ "wakeup_gran_us", 'g', 0, 100000, 3000 },
	{ "balance_ms", 'b', 1, 1000, 32 },
	{ "balance_max", 'm', 1, 64, 8 },
	{ "max_wait_ms", 'w', 10, 10000, 1000 },
};

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-v] [-s slice_ms] [-g wakeup_gran_us] [-b balance_ms] "
		"[-m balance_max] [-w max_wait_ms]\n"
		"sched_ext twin of saakm_wfq (partial mode: SCHED_EXT tasks only)\n", prog);
}

/* Parse @arg for the parameter of option @opt; -1 (and why) if refused. */
static int set_param(char opt, const char *arg)
{
	char *end;
	unsigned long v;

	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		if (params[i].opt != opt)
			continue;
		v = strtoul(arg, &end, 0);
		if (!*arg || *end || v < params[i].min || v > params[i].max) {
			fprintf(stderr, "ext_wfq: %s must be an integer in %u..%u\n",
				params[i].name, params[i].min, params[i].max);
			return -1;
		}
		params[i].val = v;
		return 0;
	}
	return -1;
}

static void read_stats(struct ext_wfq *skel, __u64 *stats)
{
	int nr_cpus = libbpf_num_possible_cpus();
	__u64 cnts[nr_cpus];
	__u32 idx;

	for (idx = 0; idx < NR_STATS; idx++) {
		stats[idx] = 0;
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &idx, cnts) < 0)
			continue;
		for (int cpu = 0; cpu < nr_cpus; cpu++)
			stats[idx] += cnts[cpu];
	}
}

int main(int argc, char **argv)
{
	struct ext_wfq *skel;
	struct bpf_link *link;
	__u64 ecode, stats[NR_STATS];
	int opt, nr_cpus = libbpf_num_possible_cpus();

	libbpf_set_print(libbpf_print_fn);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	while ((opt = getopt(argc, argv, "vhs:g:b:m:w:")) != -1) {
		if (opt == 'v') {
			verbose = true;
		} else if (opt == 'h' || opt == '?') {
			usage(basename(argv[0]));
			return opt != 'h';
		} else if (set_param(opt, optarg)) {
			return 1;
		}
	}
	if (nr_cpus < 1 || nr_cpus > MAX_CPUS) {
		fprintf(stderr, "ext_wfq: %d possible CPUs, at most %d supported\n", nr_cpus, MAX_CPUS);
		return 1;
	}
restart:
	skel = SCX_OPS_OPEN(ext_wfq_ops, ext_wfq);
	skel->rodata->slice_ns = params[0].val * 1000000ULL;
	skel->rodata->gran_ns = params[1].val * 1000ULL;
	skel->rodata->balance_ns = params[2].val * 1000000ULL;
	skel->rodata->balance_max = params[3].val;
	skel->rodata->max_wait_ns = params[4].val * 1000000ULL;
	skel->rodata->nr_cpus = nr_cpus;
	SCX_OPS_LOAD(skel, ext_wfq_ops, ext_wfq, uei);
	link = SCX_OPS_ATTACH(skel, ext_wfq_ops, ext_wfq);
	printf("ext_wfq: enabled (slice_ms=%u wakeup_gran_us=%u balance_ms=%u balance_max=%u max_wait_ms=%u)\n",
	       params[0].val, params[1].val, params[2].val, params[3].val, params[4].val);
	fflush(stdout);

	/* the 1 s poll notices a kernel-side exit */
	while (!exit_req && !UEI_EXITED(skel, uei))
		sleep(1);

	read_stats(skel, stats);
	printf("ext_wfq: exiting, preempt kicks=%llu, idle kicks=%llu, tasks pulled=%llu, "
	       "starving picks=%llu, slices ended to balance=%llu\n",
	       (unsigned long long)stats[0], (unsigned long long)stats[1],
	       (unsigned long long)stats[2], (unsigned long long)stats[3],
	       (unsigned long long)stats[4]);
	bpf_link__destroy(link);
	ecode = skel->data->uei.exit_code;
	if (UEI_EXITED(skel, uei))
		printf("ext_wfq: disabled by the kernel (exit kind %d, code %lld); the reason is in the kernel log\n",
		       skel->data->uei.kind, (long long)ecode);
	ext_wfq__destroy(skel);
	if (UEI_ECODE_RESTART(ecode))
		goto restart;
	return 0;
}
