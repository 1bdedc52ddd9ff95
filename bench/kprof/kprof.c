// SPDX-License-Identifier: GPL-2.0
/*
 * kprof: a QEMU TCG plugin that counts the guest kernel's instructions per
 * translation block, between marks.
 *
 * Under icount (shift=0) one guest instruction is one nanosecond, so where
 * the instructions go is where the guest's time goes, and this profile
 * explains a benchmark's figure exactly, without the probe effect of
 * tracepoints (each costs ~800 instructions).
 *
 * A mark is the execution of the kernel code at mark=ADDR: kprof.sh passes
 * __x64_sys_sethostname, so `hostname NAME` in the guest closes a window.
 * At each mark, the counts since the previous one are written out
 * ("MARK n", then "vaddr count" lines) and reset; at exit, the rest
 * ("EXIT"). kprof.py maps the addresses to functions.
 *
 * Args: out=FILE, mark=HEX (an address from System.map; boot with nokaslr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu_plugin_api.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

/* One translated block of kernel code and its executed instructions. */
struct block {
	uint64_t vaddr, count;
};

static struct block **blocks;
static size_t nr_blocks, cap;
static uint64_t mark;
static FILE *out;
static int marks;

/* Write and reset the counts of every block that ran since the last mark. */
static void dump(const char *what)
{
	fprintf(out, "%s %d\n", what, marks++);
	for (size_t i = 0; i < nr_blocks; i++) {
		if (!blocks[i]->count)
			continue;
		fprintf(out, "%llx %llu\n", (unsigned long long)blocks[i]->vaddr,
			(unsigned long long)blocks[i]->count);
		blocks[i]->count = 0;
	}
	fflush(out);
}

static void on_mark(unsigned int vcpu, void *unused)
{
	dump("MARK");
}

/* A block was translated: count it when it runs (a block may be translated again). */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	if (vaddr == mark)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
	if (!(vaddr >> 63))	/* user space */
		return;
	if (nr_blocks == cap) {
		cap = cap ? 2 * cap : 65536;
		blocks = realloc(blocks, cap * sizeof(*blocks));
		if (!blocks)
			abort();
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->vaddr = vaddr;
	blocks[nr_blocks++] = b;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->count,
						 qemu_plugin_tb_n_insns(tb));
}

static void on_plugin_exit(qemu_plugin_id_t id, void *unused)
{
	dump("EXIT");
	fclose(out);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	const char *path = "kprof.out";

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
		else if (!strncmp(argv[i], "mark=", 5))
			mark = strtoull(argv[i] + 5, NULL, 16);
	}
	out = fopen(path, "w");
	if (!out || !mark) {
		fprintf(stderr, "kprof: need out=FILE and mark=ADDR\n");
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
	return 0;
}
