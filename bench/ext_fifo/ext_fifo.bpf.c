/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext_fifo: the sched_ext twin of SaaKM's per-CPU FIFO policy
 * (policies/fifo/saakm_fifo.c), for side-by-side benchmarks.
 *
 * It makes the same decisions as saakm_fifo, so that a difference in a
 * benchmark measures the framework (BPF struct_ops vs. a kernel module behind
 * the SaaKM class core), not the policy:
 *
 * - Every CPU has one FIFO queue: its local DSQ. Nothing else is used, no
 *   shared DSQ, no ops.dispatch.
 * - A waking or new task goes to the tail of the queue of the n-th CPU it is
 *   allowed to use, n = pid % nr_cpus_allowed (ops.select_cpu, then
 *   ops.enqueue dispatches to SCX_DSQ_LOCAL_ON | cpu). Any other enqueue
 *   (slice expired, re-enqueue after a property change, a task joining while
 *   runnable) stays on the CPU the task is on, as saakm_fifo keeps a task on
 *   its CPU until it wakes up again.
 * - Slice 20 ms (saakm_fifo's slice_ms default). When it expires and nothing
 *   waits on that CPU, sched_ext refills it and the task keeps running; if
 *   others wait, it goes to the tail - saakm_fifo's tick rule.
 * - No balancing: an idle CPU never pulls work from another.
 * - Partial mode (SCX_OPS_SWITCH_PARTIAL): only tasks whose policy is
 *   SCHED_EXT (7) are scheduled here, everything else stays on EEVDF, as the
 *   benchmark's tasks are the only SCHED_SAAKM ones in the SaaKM runs.
 *
 * Good at: very little work per event, so it measures sched_ext's own cost.
 * Bad at: load balance, like its twin; two busy tasks can share a CPU while
 * another idles.
 */
#include <scx/common.bpf.h>

char _license[] SEC("license") = "GPL";

#define FIFO_SLICE_NS	(20ULL * 1000 * 1000)	/* saakm_fifo slice_ms = 20 */

UEI_DEFINE(uei);

/* [0] enqueues to the waking CPU's queue, [1] stays on its CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u64));
	__uint(max_entries, 2);
} stats SEC(".maps");

static void stat_inc(u32 idx)
{
	u64 *cnt = bpf_map_lookup_elem(&stats, &idx);

	if (cnt)
		(*cnt)++;
}

/* The n-th CPU the task may run on, n = pid % number of such CPUs. */
static s32 fifo_pick_cpu(struct task_struct *p)
{
	u32 n, nr_cpus = scx_bpf_nr_cpu_ids();
	s32 cpu;

	if (p->nr_cpus_allowed <= 0)
		return scx_bpf_task_cpu(p);
	n = (u32)p->pid % (u32)p->nr_cpus_allowed;
	bpf_for(cpu, 0, nr_cpus) {
		if (!bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		if (n-- == 0)
			return cpu;
	}
	return scx_bpf_task_cpu(p);
}

s32 BPF_STRUCT_OPS(ext_fifo_select_cpu, struct task_struct *p, s32 prev_cpu,
		   u64 wake_flags)
{
	return fifo_pick_cpu(p);
}

void BPF_STRUCT_OPS(ext_fifo_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 cpu;

	if (enq_flags & SCX_ENQ_WAKEUP) {
		/* select_cpu already moved it there unless it could not move */
		cpu = fifo_pick_cpu(p);
		stat_inc(0);
	} else {
		cpu = scx_bpf_task_cpu(p);
		stat_inc(1);
	}
	scx_bpf_dispatch(p, SCX_DSQ_LOCAL_ON | cpu, FIFO_SLICE_NS, enq_flags);
}

/*
 * UEI_RECORD() without its string copies: the guest kernel has no tracing
 * BPF program types, so libbpf's feature probe for bpf_probe_read_kernel()
 * fails and it rewrites bpf_probe_read_kernel_str() into the old
 * bpf_probe_read_str(), which struct_ops programs may not call. The exit
 * reason is printed in the kernel log by sched_ext anyway.
 */
void BPF_STRUCT_OPS(ext_fifo_exit, struct scx_exit_info *ei)
{
	if (bpf_core_field_exists(ei->exit_code))
		uei.exit_code = ei->exit_code;
	__sync_val_compare_and_swap(&uei.kind, uei.kind, ei->kind);
}

SCX_OPS_DEFINE(ext_fifo_ops,
	       .select_cpu		= (void *)ext_fifo_select_cpu,
	       .enqueue			= (void *)ext_fifo_enqueue,
	       .exit			= (void *)ext_fifo_exit,
	       .flags			= SCX_OPS_SWITCH_PARTIAL,
	       .name			= "ext_fifo");
