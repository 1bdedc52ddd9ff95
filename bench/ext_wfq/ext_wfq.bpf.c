/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext_wfq: the sched_ext twin of SaaKM's weighted fair queuing policy
 * (policies/wfq/saakm_wfq.c), for side-by-side benchmarks (the second row
 * set of the paper's Table II). Read saakm_wfq.c first: the rules are its
 * rules; this file says how each maps onto sched_ext, and where it cannot.
 *
 * Same decisions:
 * - Every CPU has a vtime-ordered DSQ (user DSQ id = CPU number); a task's
 *   vruntime grows by its CPU time (p->se.sum_exec_runtime, which counts
 *   only time on the CPU, like saakm_running_ns()) times 1024 / weight.
 * - Weights: the fair class's table indexed by p->static_prio, exactly
 *   saakm_nice_weight(). Not p->scx.weight, which sched_ext rounds to the
 *   cgroup scale (nice 0 = 100, nice 19 = 1 instead of 1.46).
 * - Per-CPU min_vruntime (never back), placement at max(vruntime,
 *   min_vruntime - one slice at the task's weight), new tasks at
 *   min_vruntime, moves keep the distance to min_vruntime.
 * - Slice slice_ms: sched_ext ends it at the first tick past it, as wfq's
 *   tick does; ops.dispatch() then keeps the task running unless the DSQ's
 *   first task has not run more than it (wfq's rule, see keep_prev()).
 * - Wakeup preemption: a woken task behind the running one by more than
 *   wakeup_gran_us (at its weight), or by any lead if no other task waits
 *   in the CPU's DSQ, kicks its CPU with SCX_KICK_PREEMPT.
 * - CPU choice at wakeup: the previous CPU if idle or if no allowed CPU
 *   is, else an idle allowed CPU (sched_ext's idle mask stands for wfq's
 *   enter_idle/exit_idle mask). New tasks likewise.
 * - Balancing: the same rule (pull from the busiest CPU with waiting tasks
 *   the task whose move evens the loads best, weight < difference, any for
 *   an idle CPU, an equal swap only if the task it leaves alone had no more
 *   service than the one it joins, a moved task not again before it ran; up
 *   to balance_max per balance), in ops.dispatch() when the CPU's own DSQ
 *   is empty (wfq's newly_idle). A CPU with tasks waiting kicks an idle CPU
 *   at its tick (SCX_KICK_IDLE), which then pulls in ops.dispatch() (the
 *   NOHZ kick).
 * - Starvation guard: a task that waited max_wait_ms of the CPU's busy
 *   time runs next.
 *
 * Differences sched_ext imposes:
 * - No periodic balancing hook: every balance_ms, ops.tick() of a busy CPU
 *   that sees a CPU more loaded than itself with tasks waiting ends the
 *   running task's slice (p->scx.slice = 0) so that ops.dispatch() runs
 *   and pulls; that costs a context switch wfq does not make.
 * - The wakeup preemption decision is final (no preempt() re-check), made
 *   with the running task's vruntime as of its last tick, as wfq's first
 *   check is; wfq re-checks with fresh figures before preempting.
 * - The starvation guard scans the DSQ (at most every max_wait_ms / 2 of
 *   the CPU's busy time) instead of keeping an arrival-ordered list.
 * - A renice charges the running part at the new weight (ops.set_weight
 *   has no run time); wfq charges it at the old one.
 * - Loads: a task migrated by the core while queued (affinity change) is
 *   counted on its old CPU until it sleeps, since sched_ext calls neither
 *   runnable nor quiescent on a migration.
 * - Tasks moved by a balance wait in the puller's DSQ on their old CPU
 *   until it consumes them.
 * - Partial mode (SCX_OPS_SWITCH_PARTIAL): only SCHED_EXT tasks, like
 *   ext_fifo, as the benchmark's tasks are the only SaaKM ones there.
 */
#include <scx/common.bpf.h>

char _license[] SEC("license") = "GPL";

#define MAX_CPUS	512

/* Set by the loader (ext_wfq.c) before loading; wfq's defaults. */
const volatile u64 slice_ns = 3000000;
const volatile u64 gran_ns = 3000000;
const volatile u64 balance_ns = 32000000;
const volatile u32 balance_max = 8;
const volatile u64 max_wait_ns = 1000000000;
const volatile u32 nr_cpus = 1;

UEI_DEFINE(uei);

/* The fair class's sched_prio_to_weight, nice -20 .. 19 (a fact, cited). */
static const u32 prio_to_weight[40] = {
	88761, 71755, 56483, 46273, 36291,
	29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906,
	3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423,
	335, 272, 215, 172, 137,
	110, 87, 70, 56, 45,
	36, 29, 23, 18, 15,
};

struct cpu_ctx {
	u64 min_vtime;
	u64 clock;		/* ns our tasks ran here */
	u64 load;		/* weights of the runnable tasks counted here */
	u64 curr_vtime;		/* the running task's, as of its last charge */
	u64 curr_service;
	u64 last_balance;	/* ktime of the last periodic balance check */
	u64 last_scan;		/* clock of the last starvation scan */
	bool has_curr;
	bool balance_due;
};

struct task_ctx {
	u64 vtime;
	u64 service;		/* weighted CPU time, never renormalised */
	u64 exec_seen;		/* p->se.sum_exec_runtime at the last charge */
	u64 ready_at;		/* clock of its CPU when it began to wait */
	s32 frame_cpu;		/* CPU of its min_vtime frame, -1: new */
	s32 counted_cpu;	/* CPU whose load holds counted_w, -1: none */
	u32 counted_w;
	bool moved;		/* balanced, has not run since */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_CPUS);
	__type(key, u32);
	__type(value, struct cpu_ctx);
} cpu_ctxs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} task_ctxs SEC(".maps");

/* [0] preempt kicks [1] idle kicks [2] tasks pulled [3] guard picks [4] balance slices ended */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u64));
	__uint(max_entries, 5);
} stats SEC(".maps");

static void stat_inc(u32 idx)
{
	u64 *cnt = bpf_map_lookup_elem(&stats, &idx);

	if (cnt)
		(*cnt)++;
}

static struct cpu_ctx *cctx(s32 cpu)
{
	u32 key = cpu;

	return bpf_map_lookup_elem(&cpu_ctxs, &key);
}

static struct task_ctx *tctx(struct task_struct *p)
{
	return bpf_task_storage_get(&task_ctxs, p, 0, 0);
}

static u32 weight_of(struct task_struct *p)
{
	u32 i = p->static_prio - 100;

	return i < 40 ? prio_to_weight[i] : 1024;
}

static bool vbefore(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

/* min_vtime up to the lowest of the running task and the DSQ's first. */
static void update_min(struct cpu_ctx *c, s32 cpu)
{
	struct task_struct *q;
	bool have = c->has_curr;
	u64 low = c->curr_vtime;

	bpf_for_each(scx_dsq, q, cpu, 0) {
		if (!have || vbefore(q->scx.dsq_vtime, low))
			low = q->scx.dsq_vtime;
		have = true;
		break;
	}
	if (have && vbefore(c->min_vtime, low))
		c->min_vtime = low;
}

/* Add the CPU time @p used since its last charge, weighted. */
static void charge(struct task_struct *p, struct task_ctx *t, struct cpu_ctx *c, s32 cpu)
{
	u64 exec = p->se.sum_exec_runtime, delta, dv;

	delta = exec > t->exec_seen ? exec - t->exec_seen : 0;
	t->exec_seen = exec;
	c->clock += delta;
	dv = delta * 1024 / weight_of(p);
	t->vtime += dv;
	t->service += dv;
	c->curr_vtime = t->vtime;
	c->curr_service = t->service;
	update_min(c, cpu);
}

static void count(struct task_ctx *t, s32 cpu, u32 w)
{
	struct cpu_ctx *c;

	if (t->counted_cpu >= 0) {
		c = cctx(t->counted_cpu);
		if (c)
			c->load -= t->counted_w;
	}
	t->counted_cpu = cpu;
	t->counted_w = w;
	c = cpu >= 0 ? cctx(cpu) : NULL;
	if (c)
		c->load += w;
}

s32 BPF_STRUCT_OPS(ext_wfq_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	s32 cpu;

	if (bpf_cpumask_test_cpu(prev_cpu, p->cpus_ptr) &&
	    scx_bpf_test_and_clear_cpu_idle(prev_cpu))
		return prev_cpu;
	cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	return cpu >= 0 ? cpu : prev_cpu;
}

void BPF_STRUCT_OPS(ext_wfq_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 cpu = scx_bpf_task_cpu(p);
	struct cpu_ctx *c = cctx(cpu), *old;
	struct task_ctx *t = tctx(p);
	u64 floor, gran;

	if (!c || !t) {
		scx_bpf_dispatch(p, SCX_DSQ_GLOBAL, slice_ns, enq_flags);
		return;
	}
	if (t->frame_cpu < 0) {
		t->vtime = c->min_vtime;
	} else if (t->frame_cpu != cpu) {
		old = cctx(t->frame_cpu);
		if (old)
			t->vtime += c->min_vtime - old->min_vtime;
	}
	floor = c->min_vtime - slice_ns * 1024 / weight_of(p);
	if (vbefore(t->vtime, floor))
		t->vtime = floor;
	t->frame_cpu = cpu;
	t->ready_at = c->clock;
	/* before @p is in the DSQ: sched_ext inserts it after enqueue returns */
	gran = scx_bpf_dsq_nr_queued(cpu) ? gran_ns * 1024 / weight_of(p) : 0;
	scx_bpf_dispatch_vtime(p, cpu, slice_ns, t->vtime, enq_flags);
	if ((enq_flags & SCX_ENQ_WAKEUP) && c->has_curr &&
	    (s64)(c->curr_vtime - t->vtime) > (s64)gran) {
		stat_inc(0);
		scx_bpf_kick_cpu(cpu, SCX_KICK_PREEMPT);
	}
}

/* The CPU other than @cpu with the highest load and tasks waiting, or -1. */
static s32 busiest(s32 cpu, u64 own)
{
	struct cpu_ctx *o;
	u64 max = own;
	s32 i, best = -1;

	bpf_for(i, 0, nr_cpus) {
		o = cctx(i);
		if (i != cpu && o && o->load > max && scx_bpf_dsq_nr_queued(i) > 0) {
			best = i;
			max = o->load;
		}
	}
	return best;
}

/* wfq's rule: @dst idle, or weight < difference, or a fair equal swap (from @s). */
static bool may_move(struct task_struct *q, struct task_ctx *t, s64 diff, s32 dst,
		     struct cpu_ctx *d, struct cpu_ctx *s)
{
	s64 w = weight_of(q);

	if (t->moved || q->migration_disabled || !bpf_cpumask_test_cpu(dst, q->cpus_ptr))
		return false;
	if (!d->load || w < diff)
		return true;
	return w == diff && d->has_curr && s->has_curr && s->curr_service <= d->curr_service;
}

/* One move from @src's DSQ to @dst's: the task that evens the loads best. */
static bool pull_one(s32 dst, s32 src, struct cpu_ctx *d, struct cpu_ctx *s)
{
	s64 diff = (s64)s->load - (s64)d->load, w, gap, best_gap = 0;
	struct task_struct *q;
	struct task_ctx *t;
	s32 best = -1;

	bpf_for_each(scx_dsq, q, src, 0) {
		t = tctx(q);
		if (!t || !may_move(q, t, diff, dst, d, s))
			continue;
		w = weight_of(q);
		gap = diff > 2 * w ? diff - 2 * w : 2 * w - diff;
		if (best < 0 || gap < best_gap) {
			best = q->pid;
			best_gap = gap;
		}
	}
	if (best < 0)
		return false;
	bpf_for_each(scx_dsq, q, src, 0) {
		if (q->pid != best)
			continue;
		t = tctx(q);
		if (!t)
			return false;
		t->vtime += d->min_vtime - s->min_vtime;
		t->frame_cpu = dst;
		t->moved = true;
		t->ready_at = d->clock;
		scx_bpf_dispatch_from_dsq_set_vtime(BPF_FOR_EACH_ITER, t->vtime);
		if (!scx_bpf_dispatch_vtime_from_dsq(BPF_FOR_EACH_ITER, q, dst, 0))
			return false;
		count(t, dst, weight_of(q));
		stat_inc(2);
		return true;
	}
	return false;
}

/* A task that waited max_wait_ns of this CPU's busy time: to the local DSQ. */
static bool starving(s32 cpu, struct cpu_ctx *c)
{
	struct task_struct *q;
	struct task_ctx *t;
	s32 pid = -1;
	u64 at = 0;

	if (c->clock - c->last_scan < max_wait_ns / 2)
		return false;
	c->last_scan = c->clock;
	bpf_for_each(scx_dsq, q, cpu, 0) {
		t = tctx(q);
		if (t && c->clock - t->ready_at > max_wait_ns && (pid < 0 || t->ready_at < at)) {
			pid = q->pid;
			at = t->ready_at;
		}
	}
	if (pid < 0)
		return false;
	bpf_for_each(scx_dsq, q, cpu, 0) {
		if (q->pid == pid) {
			stat_inc(3);
			return scx_bpf_dispatch_from_dsq(BPF_FOR_EACH_ITER, q, SCX_DSQ_LOCAL, 0);
		}
	}
	return false;
}

/*
 * wfq's tick rule for @prev, whose slice ended (or was ended by a kick):
 * keep running it unless the DSQ's first task has not run more than it.
 * ops.dispatch() runs before @prev goes back to the DSQ, so without this
 * the other task would always win and weights would not matter.
 */
static bool keep_prev(struct task_struct *prev, s32 cpu)
{
	struct task_ctx *t = tctx(prev);
	struct task_struct *q;
	u64 vtime;

	if (!t || !(prev->scx.flags & SCX_TASK_QUEUED))
		return false;
	vtime = t->vtime + (prev->se.sum_exec_runtime - t->exec_seen) * 1024 / weight_of(prev);
	bpf_for_each(scx_dsq, q, cpu, 0)
		return vbefore(vtime, q->scx.dsq_vtime);
	return true;
}

void BPF_STRUCT_OPS(ext_wfq_dispatch, s32 cpu, struct task_struct *prev)
{
	struct cpu_ctx *c = cctx(cpu), *s;
	s32 src, n;

	if (!c)
		return;
	if (starving(cpu, c))
		return;
	if (c->balance_due || scx_bpf_dsq_nr_queued(cpu) == 0) {
		c->balance_due = false;
		src = busiest(cpu, c->load);
		s = src >= 0 ? cctx(src) : NULL;
		if (s) {
			bpf_for(n, 0, balance_max) {
				if (!pull_one(cpu, src, c, s))
					break;
			}
		}
	}
	if (prev && keep_prev(prev, cpu))
		prev->scx.slice = slice_ns;
	else
		scx_bpf_consume(cpu);
}

void BPF_STRUCT_OPS(ext_wfq_runnable, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *t = tctx(p);

	if (t)
		count(t, scx_bpf_task_cpu(p), weight_of(p));
}

void BPF_STRUCT_OPS(ext_wfq_quiescent, struct task_struct *p, u64 deq_flags)
{
	struct task_ctx *t = tctx(p);

	if (t)
		count(t, -1, 0);
}

void BPF_STRUCT_OPS(ext_wfq_running, struct task_struct *p)
{
	s32 cpu = scx_bpf_task_cpu(p);
	struct cpu_ctx *c = cctx(cpu);
	struct task_ctx *t = tctx(p);

	if (!c || !t)
		return;
	t->exec_seen = p->se.sum_exec_runtime;
	t->moved = false;
	c->has_curr = true;
	c->curr_vtime = t->vtime;
	c->curr_service = t->service;
	update_min(c, cpu);
}

void BPF_STRUCT_OPS(ext_wfq_stopping, struct task_struct *p, bool runnable)
{
	s32 cpu = scx_bpf_task_cpu(p);
	struct cpu_ctx *c = cctx(cpu);
	struct task_ctx *t = tctx(p);

	if (!c || !t)
		return;
	charge(p, t, c, cpu);
	c->has_curr = false;
}

/* Charge; the NOHZ kick; every balance_ms, end the slice if a pull is due. */
void BPF_STRUCT_OPS(ext_wfq_tick, struct task_struct *p)
{
	s32 cpu = scx_bpf_task_cpu(p), idle;
	struct cpu_ctx *c = cctx(cpu);
	struct task_ctx *t = tctx(p);
	const struct cpumask *idle_mask;
	u64 now = bpf_ktime_get_ns();

	if (!c || !t)
		return;
	charge(p, t, c, cpu);
	if (scx_bpf_dsq_nr_queued(cpu) > 0) {
		idle_mask = scx_bpf_get_idle_cpumask();
		idle = bpf_cpumask_first(idle_mask);
		scx_bpf_put_idle_cpumask(idle_mask);
		if (idle < nr_cpus && idle != cpu) {
			stat_inc(1);
			scx_bpf_kick_cpu(idle, SCX_KICK_IDLE);
		}
	}
	if (now - c->last_balance >= balance_ns) {
		c->last_balance = now;
		if (busiest(cpu, c->load) >= 0) {
			c->balance_due = true;
			p->scx.slice = 0;
			stat_inc(4);
		}
	}
}

void BPF_STRUCT_OPS(ext_wfq_set_weight, struct task_struct *p, u32 weight)
{
	struct task_ctx *t = tctx(p);

	if (t && t->counted_cpu >= 0)
		count(t, t->counted_cpu, weight_of(p));
}

s32 BPF_STRUCT_OPS(ext_wfq_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	struct task_ctx *t;

	t = bpf_task_storage_get(&task_ctxs, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return -ENOMEM;
	t->frame_cpu = -1;
	t->counted_cpu = -1;
	return 0;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(ext_wfq_init)
{
	s32 cpu, ret;

	bpf_for(cpu, 0, nr_cpus) {
		ret = scx_bpf_create_dsq(cpu, -1);
		if (ret)
			return ret;
	}
	return 0;
}

/* As ext_fifo_exit: UEI_RECORD() without its string copies (see there). */
void BPF_STRUCT_OPS(ext_wfq_exit, struct scx_exit_info *ei)
{
	if (bpf_core_field_exists(ei->exit_code))
		uei.exit_code = ei->exit_code;
	__sync_val_compare_and_swap(&uei.kind, uei.kind, ei->kind);
}

SCX_OPS_DEFINE(ext_wfq_ops,
	       .select_cpu		= (void *)ext_wfq_select_cpu,
	       .enqueue			= (void *)ext_wfq_enqueue,
	       .dispatch		= (void *)ext_wfq_dispatch,
	       .runnable		= (void *)ext_wfq_runnable,
	       .quiescent		= (void *)ext_wfq_quiescent,
	       .running			= (void *)ext_wfq_running,
	       .stopping		= (void *)ext_wfq_stopping,
	       .tick			= (void *)ext_wfq_tick,
	       .set_weight		= (void *)ext_wfq_set_weight,
	       .init_task		= (void *)ext_wfq_init_task,
	       .init			= (void *)ext_wfq_init,
	       .exit			= (void *)ext_wfq_exit,
	       .flags			= SCX_OPS_SWITCH_PARTIAL,
	       .name			= "ext_wfq");
