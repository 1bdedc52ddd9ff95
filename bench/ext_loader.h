/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every sched_ext loader of bench/ (ext_fifo, ext_wfq) shares: libbpf's
 * messages (debug ones only with -v) and the SIGINT/SIGTERM flag that ends
 * the loader's wait. Include it after <bpf/bpf.h> and <scx/common.h>.
 */
#ifndef BENCH_EXT_LOADER_H
#define BENCH_EXT_LOADER_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>

static bool verbose;
static volatile int exit_req;

static int libbpf_print_fn(enum libbpf_print_level level, const char *format, va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

static void on_signal(int sig)
{
	exit_req = 1;
}

#endif /* BENCH_EXT_LOADER_H */
