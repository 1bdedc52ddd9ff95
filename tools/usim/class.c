// SPDX-License-Identifier: GPL-2.0
/*
 * The class simulation of usim_class.h: simulated CPUs and tasks driving a
 * policy through libusim the way kernel/src/kernel/sched/saakm/saakm.c drives it
 * in the kernel, with the invariant checks of the class's safety net.
 *
 * Kernel hook -> function here:
 *   enqueue_task_saakm   enqueue()    new_place / unblock_place, checked
 *   dequeue_task_saakm   dequeue()    block, checked
 *   select_task_rq       uc_wake(), uc_fork(): unblock_prepare / new_prepare
 *   __schedule           resched()    newly_idle + balance_pick, then
 *                                     schedule in slot order, put_prev,
 *                                     enter_idle / exit_idle
 *   task_tick_saakm      tick()       tick, resched on READY_TICK
 *   saakm_kick_cpu       hook_kick()  queued per CPU, run by deliver_kicks()
 *                                     when the operation (or hrtimer) that
 *                                     raised it returns, as the irq_work:
 *                                     preempt (tick) of a running task of
 *                                     the policy, or newly_idle + pull + pick
 *                                     on an idle CPU. A placement's kick of
 *                                     its own CPU takes no irq_work in the
 *                                     kernel (preempt() runs at that CPU's
 *                                     next pick); here it runs on return,
 *                                     at the same simulated instant, with
 *                                     the same calls in the same order
 *   __saakm_tick, watchdog  check_stalls()
 *   hotplug              uc_cpu_down(), uc_cpu_up()
 *   saakm_unregister_policy  usim_unload() (libusim drains like the kernel)
 */
#include <linux/saakm.h>
#include <errno.h>
#include <stdlib.h>

#include "usim.h"
#include "usim_class.h"
#include "saakm_check.h"	/* the kernel's rules and error texts */

/* What the class knows about a task besides p->saakm. */
struct uc_task {
	struct task_struct *p;
	bool alive;
	bool queued;			/* runnable: SAAKM_TF_QUEUED */
	unsigned long long since;	/* last state change, for the watchdog */
};

struct uc_cpu {
	bool online;
	bool idle;			/* enter_idle told, exit_idle not yet */
	struct task_struct *curr;
	struct list_head parked;	/* RUNNING tasks that lost the CPU */
	unsigned long long exec_start;
	unsigned long long ready_since;	/* waiting READY tasks, no pick since */
	unsigned long long next_balance[SAAKM_MAX_POLICIES];	/* by policy rank */
	bool kicked;			/* a saakm_kick_cpu() waits for delivery */
	unsigned long long kick_preempt;	/* ... with PREEMPT, policies by rank */
};

#define TRACE_LINES	256
#define TRACE_WIDTH	120
#define NOTABLE_LINES	16

/*
 * Trace records are formatted only when dumped: the stress runs millions
 * of callbacks and prints the last few dozen once, on a failure.
 */
enum { TR_TEXT, TR_STATE, TR_CALL, TR_PICK2, TR_RUN, TR_FORCE, TR_OP, TR_KICK };

struct trec {
	int kind;
	int v[5];
	long ret;
	const char *what;		/* TR_OP: a static string */
	unsigned long long now;
	char text[TRACE_WIDTH];
};

static struct {
	struct uc_opts o;
	struct saakm_policy *pol;
	int module;		/* the module object that runs it (usim_load_module()) */
	struct uc_cpu cpus[USIM_MAX_CPUS];
	struct uc_task tasks[UC_MAX_TASKS];
	char failure[512];
	bool failed;
	char refusal[640];		/* uc_refusal(): may quote the failure */
	int nr_pids;			/* pids in use are below it */
	unsigned long long next_tick;
	unsigned long long calls[64];
	struct trec trace[TRACE_LINES];
	unsigned long trace_n;
	struct trec notable[NOTABLE_LINES];	/* hotplug, affinity, fork, exit */
	unsigned long notable_n;
	bool kick_pending;		/* some CPU has kicked set */
	struct uc_kick_stats kst;
} C;

/* Trace and failure. */

static struct trec *trace_rec(int kind)
{
	struct trec *r = &C.trace[C.trace_n++ % TRACE_LINES];

	r->kind = kind;
	r->now = usim_now_ns();
	return r;
}

void uc_trace(const char *fmt, ...)
{
	struct trec *r = trace_rec(TR_TEXT);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->text, sizeof(r->text), fmt, ap);
	va_end(ap);
}

static void trace5(int kind, int a, int b, int c, int d, int e, long ret)
{
	struct trec *r = trace_rec(kind);

	r->v[0] = a;
	r->v[1] = b;
	r->v[2] = c;
	r->v[3] = d;
	r->v[4] = e;
	r->ret = ret;
}

static void trace_op(const char *what, int pid, int cpu)
{
	struct trec *r = trace_rec(TR_OP);

	r->what = what;
	r->v[0] = pid;
	r->v[1] = cpu;
}

static void trace_format(const struct trec *r, char *buf, size_t size)
{
	const int *v = r->v;

	switch (r->kind) {
	case TR_STATE:
		snprintf(buf, size, "  task %d %s -> %s (cpu %d, rq %d)", v[0],
			 usim_state_name(v[1]), usim_state_name(v[2]), v[3], v[4]);
		break;
	case TR_FORCE:
		snprintf(buf, size, "  class: task %d %s -> %s (forced)", v[0],
			 usim_state_name(v[1]), usim_state_name(v[2]));
		break;
	case TR_CALL:
		if (v[2] >= 0)
			snprintf(buf, size, "  %s(cpu %d, task %d) = %ld", usim_event_name(v[0]),
				 v[1], v[2], r->ret);
		else
			snprintf(buf, size, "  %s(cpu %d) = %ld", usim_event_name(v[0]), v[1], r->ret);
		break;
	case TR_PICK2:
		snprintf(buf, size, "  %s(src %d, dst %d) = %ld", usim_event_name(v[0]), v[1], v[2],
			 r->ret);
		break;
	case TR_OP:
		snprintf(buf, size, "%s task %d (cpu %d)", r->what, v[0], v[1]);
		break;
	case TR_RUN:
		snprintf(buf, size, "class: cpu %d runs %d (was %d)", v[0], v[1], v[2]);
		break;
	case TR_KICK:
		snprintf(buf, size, "kick cpu %d%s", v[0], v[1] ? " (preempt)" : "");
		break;
	default:
		snprintf(buf, size, "%s", r->text);
	}
}

/* Also keep @fmt in the short list of notable events (rare operations). */
static __printf(1, 2) void trace_notable(const char *fmt, ...)
{
	struct trec *r = &C.notable[C.notable_n++ % NOTABLE_LINES];
	va_list ap;

	r->kind = TR_TEXT;
	r->now = usim_now_ns();
	va_start(ap, fmt);
	vsnprintf(r->text, sizeof(r->text), fmt, ap);
	va_end(ap);
	C.trace[C.trace_n++ % TRACE_LINES] = *r;
}

void uc_notable_dump(FILE *f)
{
	unsigned long i = C.notable_n > NOTABLE_LINES ? C.notable_n - NOTABLE_LINES : 0;

	for (; i < C.notable_n; i++) {
		const struct trec *r = &C.notable[i % NOTABLE_LINES];

		fprintf(f, "#   %5llu.%03llu ms  %s\n", r->now / 1000000, r->now / 1000 % 1000, r->text);
	}
}

void uc_trace_dump(FILE *f, int last)
{
	unsigned long i = C.trace_n > (unsigned long)last ? C.trace_n - last : 0;
	char line[TRACE_WIDTH + 40];

	if (C.trace_n - i > TRACE_LINES)
		i = C.trace_n - TRACE_LINES;
	for (; i < C.trace_n; i++) {
		const struct trec *r = &C.trace[i % TRACE_LINES];

		trace_format(r, line, sizeof(line));
		fprintf(f, "#   %5llu.%03llu ms  %s\n", r->now / 1000000, r->now / 1000 % 1000, line);
	}
}

static __printf(1, 2) void fail(const char *fmt, ...)
{
	va_list ap;

	if (C.failed)
		return;
	C.failed = true;
	va_start(ap, fmt);
	vsnprintf(C.failure, sizeof(C.failure), fmt, ap);
	va_end(ap);
	uc_trace("FAIL: %s", C.failure);
}

/*
 * A fault the kernel ejects a policy for: its kind first, as
 * /proc/saakm/errors shows it, then the text, the kernel's where both
 * report it (SAAKM_ERR_* in saakm_check.h).
 */
#define eject(KIND, fmt, ...) \
	fail("%s: " fmt, saakm_eject_kind_name(SAAKM_EJECT_##KIND), ##__VA_ARGS__)

const char *uc_failure(void)
{
	return C.failed ? C.failure : NULL;
}

void uc_clear_failure(void)
{
	C.failed = false;
	C.failure[0] = '\0';
	C.refusal[0] = '\0';	/* it may quote the failure */
}

/* Each operation starts with no refusal, so uc_refusal() speaks of the last one. */
static void begin_op(void)
{
	C.refusal[0] = '\0';
}

/*
 * Refuse an operation: it changed nothing, and returns -1. @fmt says which
 * operation (with its pid or CPU) and which precondition failed, so that a
 * test's failed check can say why rather than only that it got -1.
 */
static __printf(1, 2) int refuse(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(C.refusal, sizeof(C.refusal), fmt, ap);
	va_end(ap);
	/* Not traced after a failure: the operations a test goes on with
	 * would push the events that led to it out of the trace. */
	if (!C.failed)
		uc_trace("refused: %s", C.refusal);
	return -1;
}

const char *uc_refusal(void)
{
	return C.refusal[0] ? C.refusal : NULL;
}

/* Once the world has failed, every operation is refused with this and the failure. */
#define FAILED_ALREADY "the simulation has already failed: %s"

/* libusim hooks. */

static struct uc_task *T(struct task_struct *p)
{
	return p ? &C.tasks[p->pid] : NULL;
}

static void hook_state(void *ctx, struct task_struct *p, int from, int to, int cpu, int rq_cpu)
{
	T(p)->since = usim_now_ns();
	trace5(TR_STATE, p->pid, from, to, cpu, rq_cpu, 0);
}

static void hook_error(void *ctx, const char *msg)
{
	fail("%s", msg);
}

/* Tasks running or queued on @cpu: in this world, only the policies' tasks. */
static unsigned int hook_nr_running(void *ctx, int cpu)
{
	unsigned int n = 0;
	int pid;

	for (pid = 0; pid < C.nr_pids; pid++)
		if (C.tasks[pid].alive && C.tasks[pid].queued &&
		    (int)task_cpu(C.tasks[pid].p) == cpu)
			n++;
	return n;
}

static int rank(const struct saakm_policy *pol);

/* saakm_kick_cpu(): remember it; deliver_kicks() carries it out. */
static void hook_kick(void *ctx, struct saakm_policy *pol, int cpu, unsigned int flags)
{
	struct uc_cpu *c = &C.cpus[cpu];

	C.kst.kicks++;
	c->kicked = true;
	if (flags & SAAKM_KICK_PREEMPT) {
		C.kst.preempt_kicks++;
		c->kick_preempt |= 1ULL << rank(pol);
	}
	C.kick_pending = true;
	trace5(TR_KICK, cpu, !!(flags & SAAKM_KICK_PREEMPT), 0, 0, 0, 0);
}

static void deliver_kicks(void);

/* An hrtimer callback returned: its kicks run now, as irq_work at irq exit. */
static void hook_timer(void *ctx, int cpu)
{
	C.kst.timers++;
	deliver_kicks();
}

static void hook_call(void *ctx, struct saakm_policy *pol, int ev, int cpu,
		      struct task_struct *p, int a, long ret)
{
	if (ev < (int)ARRAY_SIZE(C.calls))
		C.calls[ev]++;
	if (ev == SAAKM_EV_BALANCE_PICK)
		trace5(TR_PICK2, ev, cpu, a, 0, 0, ret);
	else
		trace5(TR_CALL, ev, cpu, p ? p->pid : -1, 0, 0, ret);
}

/* Helpers. */

static struct uc_task *task(int pid)
{
	if (pid < 0 || pid >= UC_MAX_TASKS || !C.tasks[pid].alive)
		return NULL;
	return &C.tasks[pid];
}

static bool cpu_valid(int cpu)
{
	return cpu >= 0 && cpu < C.o.nr_cpus;
}

static bool ready(int state)
{
	return state == SAAKM_READY || state == SAAKM_READY_TICK;
}

static void force(struct task_struct *p, int state)
{
	trace5(TR_FORCE, p->pid, p->saakm.state, state, 0, 0, 0);
	usim_force_state(p, state);
	T(p)->since = usim_now_ns();
}

/* Charge the running task of @cpu with the time since it last was. */
static void update_curr(int cpu)
{
	struct uc_cpu *c = &C.cpus[cpu];
	unsigned long long now = usim_now_ns();

	if (c->curr)
		usim_task_add_runtime(c->curr, now - c->exec_start);
	c->exec_start = now;
}

static void park(struct task_struct *p, int cpu, bool tail)
{
	if (tail)
		list_move_tail(&p->saakm.core_node, &C.cpus[cpu].parked);
	else
		list_move(&p->saakm.core_node, &C.cpus[cpu].parked);
}

static void unpark(struct task_struct *p)
{
	list_del_init(&p->saakm.core_node);
}

/* Work on @cpu for policies ranked before @upto (NULL: any). */
static bool has_work(int cpu, struct saakm_policy *upto)
{
	struct task_struct *p;
	int n;

	for (n = 0; n < usim_nr_policies(); n++) {
		struct saakm_policy *pol = usim_policy_nth(n);

		if (pol == upto)
			break;
		if (usim_policy_nr_ready(pol, cpu))
			return true;
		list_for_each_entry(p, &C.cpus[cpu].parked, saakm.core_node)
			if (p->saakm.policy == pol)
				return true;
	}
	return false;
}

static bool keeps_cpu(int cpu, struct task_struct *prev)
{
	return prev && T(prev)->queued && prev->saakm.policy &&
	       prev->saakm.state == SAAKM_RUNNING && !has_work(cpu, prev->saakm.policy);
}

/* policy_pick(): ask @pol for a task on @cpu and check what it returns. */
static struct task_struct *policy_pick(struct saakm_policy *pol, int cpu)
{
	struct task_struct *p;

	usim_call(pol, SAAKM_EV_SCHEDULE, cpu, NULL, -1);
	p = usim_last_task();
	if (!p)
		return NULL;
	C.cpus[cpu].ready_since = usim_now_ns();
	if (!saakm_pick_ok(p->saakm.policy == pol, (int)task_cpu(p) == cpu, T(p)->queued,
			   p->saakm.state)) {
		eject(BAD_PICK, SAAKM_ERR_BAD_SCHEDULE, cpu, p->pid, task_cpu(p),
		      usim_state_name(p->saakm.state));
		return NULL;
	}
	return p;
}

/* saakm_pick_parked(): a parked task first, else the policies in slot order. */
static struct task_struct *pick(int cpu)
{
	struct task_struct *p;
	int n;

	for (n = 0; n < usim_nr_policies(); n++) {
		struct saakm_policy *pol = usim_policy_nth(n);

		list_for_each_entry(p, &C.cpus[cpu].parked, saakm.core_node)
			if (p->saakm.policy == pol)
				return p;
		if (!usim_policy_nr_ready(pol, cpu))
			continue;
		p = policy_pick(pol, cpu);
		if (p)
			return p;
	}
	return NULL;
}

static void enqueue(struct task_struct *p, int cpu, bool wakeup);
static void dequeue(struct task_struct *p, bool sleep);
static void check_placed(struct task_struct *p, int cpu, enum saakm_event ev);

/* saakm_pull(): take one task of @pol from @src to @dst with balance_pick(). */
static bool pull_one(struct saakm_policy *pol, int src, int dst)
{
	struct task_struct *p;

	usim_call(pol, SAAKM_EV_BALANCE_PICK, src, NULL, dst);
	p = usim_last_task();
	if (!p)
		return false;
	/* The kernel's verdict (saakm_check.c) on the kernel's facts. */
	switch (saakm_pull_verdict(p->saakm.state, (int)task_cpu(p) == src, T(p)->queued,
				   C.cpus[src].curr == p,
				   cpumask_test_cpu(dst, p->cpus_ptr) && C.cpus[dst].online)) {
	case SAAKM_PULL_MOVE:
		uc_trace("class: migrate task %d cpu %d -> %d", p->pid, src, dst);
		dequeue(p, false);
		usim_set_task_cpu(p, dst);
		enqueue(p, dst, false);
		return !C.failed;
	case SAAKM_PULL_GIVE_BACK:
		uc_trace("class: task %d still runs on cpu %d: given back", p->pid, src);
		usim_call(pol, SAAKM_EV_UNBLOCK_PLACE, src, p, -1);
		check_placed(p, src, SAAKM_EV_UNBLOCK_PLACE);
		return false;
	case SAAKM_PULL_BAD:
		break;
	}
	eject(BAD_PICK, SAAKM_ERR_BAD_BALANCE_PICK " (state %s, cpu %d)",
	      src, dst, p->pid, usim_state_name(p->saakm.state), task_cpu(p));
	return false;
}

/* One balance moves up to ops.balance_max tasks, until balance_pick() says NULL. */
static void pull(struct saakm_policy *pol, int src, int dst)
{
	unsigned int n, max = usim_policy_balance_max(pol);

	for (n = 0; n < max && C.cpus[src].online && C.cpus[dst].online; n++)
		if (!pull_one(pol, src, dst))
			break;
}

static bool valid_src(int src, int dst)
{
	return src >= 0 && src < C.o.nr_cpus && src != dst && C.cpus[src].online;
}

/* balance_saakm(): newly idle @cpu asks each policy for a CPU to pull from. */
static void balance(int cpu, struct task_struct *prev)
{
	int n;

	if (keeps_cpu(cpu, prev) || has_work(cpu, NULL))
		return;
	for (n = 0; n < usim_nr_policies() && !C.failed; n++) {
		struct saakm_policy *pol = usim_policy_nth(n);
		int src;

		/* The class asks no policy without tasks (balance_saakm()). */
		if (!usim_has_callback(pol, SAAKM_EV_NEWLY_IDLE) || !usim_policy_has_tasks(pol))
			continue;
		src = usim_call(pol, SAAKM_EV_NEWLY_IDLE, cpu, NULL, -1);
		if (!valid_src(src, cpu))
			continue;
		pull(pol, src, cpu);
		if (has_work(cpu, NULL))
			return;
	}
}

/* put_prev_task_saakm(): @prev leaves @cpu for another task or idle. */
static void put_prev(struct task_struct *prev, int cpu)
{
	if (!T(prev)->queued || !prev->saakm.policy)
		return;
	switch (prev->saakm.state) {
	case SAAKM_READY_TICK:
		force(prev, SAAKM_READY);
		break;
	case SAAKM_RUNNING:
		park(prev, cpu, false);
		break;
	case SAAKM_READY:
		break;
	default:
		eject(CALLBACK, "task %d left cpu %d in state %s while runnable", prev->pid, cpu,
		     usim_state_name(prev->saakm.state));
		force(prev, SAAKM_RUNNING);
		park(prev, cpu, true);
	}
}

static void idle_notify(int cpu, bool idle)
{
	struct uc_cpu *c = &C.cpus[cpu];
	int n;

	if (c->idle == idle)
		return;
	c->idle = idle;
	for (n = 0; n < usim_nr_policies(); n++)
		usim_call(usim_policy_nth(n), idle ? SAAKM_EV_ENTER_IDLE : SAAKM_EV_EXIT_IDLE,
			  cpu, NULL, -1);
}

/* __schedule() on @cpu: balance, pick, switch. */
static void resched(int cpu)
{
	struct uc_cpu *c = &C.cpus[cpu];
	struct task_struct *prev = c->curr, *next;

	if (!c->online || C.failed)
		return;
	update_curr(cpu);
	/* The class's balance() runs only when a task (not idle) was running. */
	if (prev)
		balance(cpu, prev);
	if (C.failed)
		return;
	if (keeps_cpu(cpu, prev)) {
		next = prev;
	} else {
		next = pick(cpu);
		if (next == prev && next)
			unpark(next);
	}
	if (C.failed || next == prev)
		return;
	if (prev) {
		put_prev(prev, cpu);
		usim_set_on_cpu(prev, 0);
	}
	if (next) {
		unpark(next);
		if (next->saakm.state == SAAKM_NOT_QUEUED || next->saakm.state == SAAKM_BLOCKED)
			force(next, SAAKM_RUNNING);
		usim_set_on_cpu(next, 1);
	}
	c->curr = next;
	c->exec_start = usim_now_ns();
	trace5(TR_RUN, cpu, next ? next->pid : -1, prev ? prev->pid : -1, 0, 0, 0);
	idle_notify(cpu, next == NULL);
}

/* wakeup_preempt(): an idle CPU, or one running a later policy, reschedules. */
static void preempt_check(struct task_struct *p, int cpu)
{
	struct task_struct *curr = C.cpus[cpu].curr;

	if (!curr || !T(curr)->queued)
		resched(cpu);
	else if (curr->saakm.policy && p->saakm.policy &&
		 usim_policy_id(p->saakm.policy) != usim_policy_id(curr->saakm.policy) &&
		 has_work(cpu, curr->saakm.policy))
		resched(cpu);
}

/*
 * The irq_work of saakm_kick_cpu() on @cpu. An idle CPU reschedules and,
 * having no task of its own, asks the policies' newly_idle() (pulls). A
 * CPU running a task of a policy that asked for PREEMPT calls its
 * preempt() (default tick()) and reschedules if the task went READY_TICK.
 * Anything else: nothing (the CPU asks the policies when its task stops).
 */
static void kick_one(int cpu, unsigned long long preempt_mask)
{
	struct uc_cpu *c = &C.cpus[cpu];
	struct task_struct *p = c->curr;
	struct saakm_policy *pol;

	if (!c->online)
		return;
	if (!p || !T(p)->queued) {
		C.kst.idle_kicks++;
		update_curr(cpu);
		balance(cpu, NULL);
		resched(cpu);
		return;
	}
	pol = p->saakm.policy;
	if (!pol || !(preempt_mask >> rank(pol) & 1) || p->saakm.state != SAAKM_RUNNING)
		return;
	update_curr(cpu);
	C.kst.preempt_calls++;
	usim_call(pol, SAAKM_EV_PREEMPT, cpu, p, -1);
	if (p->saakm.state == SAAKM_READY_TICK) {
		C.kst.preempted++;
		resched(cpu);
	}
}

/* Carry out the kicks raised so far, and those they raise in turn. */
static void deliver_kicks(void)
{
	int budget = 100000, cpu;

	while (C.kick_pending && !C.failed) {
		C.kick_pending = false;
		for (cpu = 0; cpu < C.o.nr_cpus && !C.failed; cpu++) {
			struct uc_cpu *c = &C.cpus[cpu];
			unsigned long long mask = c->kick_preempt;

			if (!c->kicked)
				continue;
			c->kicked = false;
			c->kick_preempt = 0;
			if (!budget--) {
				fail("kick storm: kicks keep raising kicks (100000 delivered at once)");
				return;
			}
			kick_one(cpu, mask);
		}
	}
}

/* check_placed(): after new_place/unblock_place the task must be READY. */
static void check_placed(struct task_struct *p, int cpu, enum saakm_event ev)
{
	if (p->saakm.state == saakm_left_state(ev))
		return;
	eject(CALLBACK, SAAKM_ERR_LEFT_STATE, saakm_event_name(ev), p->pid,
	      usim_state_name(p->saakm.state));
	force(p, SAAKM_RUNNING);
	park(p, cpu, true);
}

static void enqueue(struct task_struct *p, int cpu, bool wakeup)
{
	struct saakm_policy *pol = p->saakm.policy;

	T(p)->queued = true;
	switch (p->saakm.state) {
	case SAAKM_NOT_QUEUED:
		usim_call(pol, SAAKM_EV_NEW_PLACE, cpu, p, -1);
		check_placed(p, cpu, SAAKM_EV_NEW_PLACE);
		break;
	case SAAKM_BLOCKED:
	case SAAKM_MIGRATING:
		usim_call(pol, SAAKM_EV_UNBLOCK_PLACE, cpu, p, -1);
		check_placed(p, cpu, SAAKM_EV_UNBLOCK_PLACE);
		break;
	default:
		break;
	}
}

static void dequeue(struct task_struct *p, bool sleep)
{
	int cpu = task_cpu(p);

	if (C.cpus[cpu].curr == p)
		update_curr(cpu);
	T(p)->queued = false;
	switch (p->saakm.state) {
	case SAAKM_READY:
	case SAAKM_READY_TICK:
	case SAAKM_RUNNING:
		unpark(p);
		usim_call(p->saakm.policy, SAAKM_EV_BLOCK, cpu, p, -1);
		if (p->saakm.state != saakm_left_state(SAAKM_EV_BLOCK)) {
			eject(CALLBACK, SAAKM_ERR_LEFT_STATE, saakm_event_name(SAAKM_EV_BLOCK),
			      p->pid, usim_state_name(p->saakm.state));
			force(p, SAAKM_BLOCKED);
		}
		break;
	default:
		break;
	}
	(void)sleep;
}

/* select_fallback_rq(): an active CPU the task may use, or widen its affinity. */
static int fallback_cpu(struct task_struct *p)
{
	int cpu;

	for (cpu = 0; cpu < C.o.nr_cpus; cpu++)
		if (C.cpus[cpu].online && cpumask_test_cpu(cpu, p->cpus_ptr))
			return cpu;
	trace_notable("class: task %d no longer affine to any online cpu: all cpus allowed", p->pid);
	usim_set_affinity(p, ~0ULL);
	for (cpu = 0; cpu < C.o.nr_cpus; cpu++)
		if (C.cpus[cpu].online)
			return cpu;
	return 0;
}

/* The CPU a callback chose, checked like select_task_rq_saakm(). */
static int checked_cpu(struct task_struct *p, int cpu, int prev_cpu, const char *ev)
{
	if (!saakm_cpu_ok(p, cpu, C.o.nr_cpus)) {
		eject(WRONG_CPU, "%s " SAAKM_ERR_OUTSIDE_AFFINITY, ev, cpu, p->pid);
		cpu = prev_cpu;
	}
	return cpu;
}

/* The core's last word (is_cpu_allowed(), select_fallback_rq()). */
static int core_cpu(struct task_struct *p, int cpu)
{
	if (cpu < 0 || cpu >= C.o.nr_cpus || !C.cpus[cpu].online ||
	    !cpumask_test_cpu(cpu, p->cpus_ptr))
		cpu = fallback_cpu(p);
	return cpu;
}

/* Checks. */

/*
 * check_llc (struct uc_opts), before a placement: an idle CPU @p may use in
 * the LLC of @home (online), found as saakm_idle_cpu() finds it; or -1.
 */
static int llc_idle(struct task_struct *p, int home)
{
	if (!C.o.check_llc || !cpu_valid(home) || !C.cpus[home].online)
		return -1;
	return usim_idle_cpu(p, saakm_topo_mask(home, SAAKM_TOPO_LLC), home);
}

/* ... and after it: @cpu, chosen by @ev, must share the LLC of @home if @idle did. */
static void check_llc(struct task_struct *p, const char *ev, int home, int idle, int cpu)
{
	if (idle >= 0 && !cpumask_test_cpu(cpu, saakm_topo_mask(home, SAAKM_TOPO_LLC)))
		fail("placement: %s put task %d on cpu %d, outside the LLC of cpu %d, where cpu %d was idle",
		     ev, p->pid, cpu, home, idle);
}

static const char *check_task(struct uc_task *t)
{
	struct task_struct *p = t->p;
	int cpu = task_cpu(p), state = p->saakm.state;
	static char why[200];

	if (!p->saakm.policy)
		return NULL;
	if (t->queued && !C.cpus[cpu].online) {
		snprintf(why, sizeof(why), "task %d runnable on offline cpu %d", p->pid, cpu);
		return why;
	}
	if (!t->queued) {
		if (state != SAAKM_BLOCKED && state != SAAKM_TERMINATED) {
			snprintf(why, sizeof(why), "sleeping task %d is %s", p->pid,
				 usim_state_name(state));
			return why;
		}
		return NULL;
	}
	if (state == SAAKM_RUNNING) {
		if (C.cpus[cpu].curr == p || !list_empty(&p->saakm.core_node))
			return NULL;
		snprintf(why, sizeof(why), "task %d RUNNING but not on cpu %d nor parked", p->pid, cpu);
		return why;
	}
	if (ready(state)) {
		int rq_cpu = usim_task_rq_cpu(p);

		if (rq_cpu == cpu || rq_cpu == -1)
			return NULL;
		snprintf(why, sizeof(why), "task %d %s on cpu %d but in the runqueue of cpu %d",
			 p->pid, usim_state_name(state), cpu, rq_cpu);
		return why;
	}
	snprintf(why, sizeof(why), "lost: task %d runnable on cpu %d in state %s, in no runqueue, not running",
		 p->pid, cpu, usim_state_name(state));
	return why;
}

int uc_check(void)
{
	int pid, cpu;

	for (pid = 0; pid < C.nr_pids && !C.failed; pid++) {
		const char *why;

		if (!C.tasks[pid].alive)
			continue;
		why = check_task(&C.tasks[pid]);
		if (why)
			fail("invariant: %s", why);
	}
	for (cpu = 0; cpu < C.o.nr_cpus && !C.failed; cpu++) {
		struct task_struct *curr = C.cpus[cpu].curr;

		if (curr && (!T(curr)->queued || (int)task_cpu(curr) != cpu))
			fail("invariant: cpu %d runs task %d which is not runnable there", cpu, curr->pid);
		if (!C.pol || !usim_policy_nr_ready(C.pol, cpu))
			C.cpus[cpu].ready_since = usim_now_ns();
	}
	return C.failed ? -1 : 0;
}

/* Rank of @pol among the registered policies (its slot order). */
static int rank(const struct saakm_policy *pol)
{
	int n;

	for (n = 0; n < usim_nr_policies(); n++)
		if (usim_policy_nth(n) == pol)
			return n;
	return n;
}

/*
 * saakm_cpu_free_for(): could @pol run a task on @cpu? Not while a task of
 * an earlier policy runs there: waiting then is not @pol's fault.
 */
static bool free_for(const struct saakm_policy *pol, int cpu)
{
	struct task_struct *curr = C.cpus[cpu].curr;

	return !curr || !curr->saakm.policy || rank(curr->saakm.policy) >= rank(pol);
}

/* The tick's per-CPU check and the watchdog's per-task check. */
static void check_stalls(void)
{
	unsigned long long now = usim_now_ns(), limit = C.o.stall_ns;
	int pid, cpu;

	if (C.pol && usim_policy_timeout_ms(C.pol) &&
	    usim_policy_timeout_ms(C.pol) * 1000000ULL < limit)
		limit = usim_policy_timeout_ms(C.pol) * 1000000ULL;
	for (cpu = 0; cpu < C.o.nr_cpus && !C.failed; cpu++) {
		if (!C.cpus[cpu].online || !C.pol || !usim_policy_nr_ready(C.pol, cpu))
			continue;
		if (now - C.cpus[cpu].ready_since > limit)
			eject(STALL, SAAKM_ERR_NO_PICK, cpu,
			      (unsigned int)((now - C.cpus[cpu].ready_since) / 1000000),
			      usim_policy_nr_ready(C.pol, cpu));
	}
	for (pid = 0; pid < C.nr_pids && !C.failed; pid++) {
		struct uc_task *t = &C.tasks[pid];

		if (!t->alive || !t->queued || !ready(t->p->saakm.state))
			continue;
		if (!free_for(t->p->saakm.policy, task_cpu(t->p)))
			t->since = now;		/* the wait clock stops */
		else if (now - t->since > limit)
			eject(STALL, "task %d ready for %llu ms on cpu %d without running", pid,
			     (now - t->since) / 1000000, task_cpu(t->p));
	}
}

static int done(void)
{
	deliver_kicks();
	if (!C.failed)
		uc_check();
	return C.failed ? -1 : 0;
}

/* World. */

int uc_start(const struct uc_opts *opts)
{
	static const struct usim_hooks hooks = {
		.state = hook_state,
		.error = hook_error,
		.call = hook_call,
		.kick = hook_kick,
		.timer = hook_timer,
		.nr_running = hook_nr_running,
	};
	int cpu, ret;

	memset(&C, 0, sizeof(C));
	C.o = *opts;
	if (!C.o.tick_ns)
		C.o.tick_ns = 4 * NSEC_PER_MSEC;
	if (!C.o.stall_ns)
		C.o.stall_ns = NSEC_PER_SEC;
	ret = usim_setup(C.o.nr_cpus, &hooks);
	if (ret)
		return ret;
	usim_set_topology(C.o.smt, C.o.llc, C.o.node);
	usim_set_quiet(C.o.quiet);
	for (cpu = 0; cpu < C.o.nr_cpus; cpu++) {
		C.cpus[cpu].online = true;
		C.cpus[cpu].idle = !(C.o.busy_cpus >> cpu & 1);
		INIT_LIST_HEAD(&C.cpus[cpu].parked);
	}
	C.next_tick = C.o.tick_ns;
	if (C.o.params && usim_set_params(C.o.params)) {
		fail("bad module parameters: %s", C.o.params);
		return -EINVAL;
	}
	uc_trace("load (%d cpus%s%s)", C.o.nr_cpus, C.o.params ? ", " : "",
		 C.o.params ? C.o.params : "");
	ret = usim_load();
	if (ret) {
		fail("module_init returned %d", ret);
		return ret;
	}
	C.pol = usim_policy(C.o.policy);
	if (!C.pol) {
		fail("no policy %s registered", C.o.policy ? C.o.policy : "");
		return -ENOENT;
	}
	deliver_kicks();
	return C.failed ? -EINVAL : 0;
}

/* Operations. */

/*
 * sched_fork() + saakm_fork() + wake_up_new_task(): @pid joins @pol with what
 * it inherits from its parent, @runtime its sched_runtime (ns, 0: none).
 */
static int fork_task(struct saakm_policy *pol, int pid, int cpu, unsigned long long affinity,
		     int nice, unsigned long long runtime)
{
	struct task_struct *p;
	struct uc_task *t;
	int r, idle;

	if (C.failed)
		return refuse("fork %d: " FAILED_ALREADY, pid, C.failure);
	if (pid < 0 || pid >= UC_MAX_TASKS)
		return refuse("fork %d: pid out of range 0..%d", pid, UC_MAX_TASKS - 1);
	if (C.tasks[pid].alive)
		return refuse("fork %d: task %d exists already", pid, pid);
	if (!cpu_valid(cpu))
		return refuse("fork %d: no cpu %d (%d cpus)", pid, cpu, C.o.nr_cpus);
	if (!C.cpus[cpu].online)
		return refuse("fork %d: cpu %d is offline", pid, cpu);
	/* The parent runs on a CPU of the affinity it passes on. */
	if (affinity && !(affinity >> cpu & 1))
		return refuse("fork %d: cpu %d is not in its affinity %#llx", pid, cpu, affinity);
	if (!pol)
		return refuse("fork %d: no policy loaded", pid);
	p = usim_task(pid);
	t = &C.tasks[pid];
	if (pid >= C.nr_pids)
		C.nr_pids = pid + 1;
	*t = (struct uc_task){ .p = p, .alive = true, .since = usim_now_ns() };
	usim_set_affinity(p, affinity ? affinity : ~0ULL);
	if (!usim_task_affinity(p))
		usim_set_affinity(p, ~0ULL);
	usim_set_nice(p, nice);
	usim_set_task_cpu(p, cpu);
	trace_notable("fork task %d on cpu %d (affinity %#llx, nice %d)", pid, cpu,
		 usim_task_affinity(p), nice);
	/*
	 * saakm_fork(): attach, new_prepare, and setparam_attr if the child
	 * inherits a sched_runtime (the fair class's child keeps its parent's
	 * slice); wake_up_new_task(): place.
	 */
	usim_attach(p, pol, SAAKM_NOT_QUEUED);
	idle = llc_idle(p, cpu);
	r = usim_call(pol, SAAKM_EV_NEW_PREPARE, cpu, p, -1);
	if (usim_has_callback(pol, SAAKM_EV_NEW_PREPARE)) {
		r = checked_cpu(p, r, cpu, "new_prepare");
		check_llc(p, "new_prepare", cpu, idle, r);
	}
	usim_set_sched_runtime(p, runtime);	/* saakm_fork_attr() */
	if (runtime && !C.failed)
		usim_call(pol, SAAKM_EV_SETPARAM_ATTR, task_cpu(p), p, -1);
	/* wake_up_new_task(): select_task_rq() asks the class only if the
	 * task may use more than one CPU. */
	if (p->nr_cpus_allowed == 1)
		r = cpumask_first(p->cpus_ptr);
	cpu = core_cpu(p, r);
	usim_set_task_cpu(p, cpu);
	enqueue(p, cpu, false);
	if (!C.failed)
		preempt_check(p, cpu);
	return done();
}

int uc_fork(int pid, int cpu, unsigned long long affinity, int nice)
{
	return uc_fork_in(NULL, pid, cpu, affinity, nice);
}

int uc_fork_in(const char *policy, int pid, int cpu, unsigned long long affinity, int nice)
{
	struct saakm_policy *pol = policy ? usim_policy(policy) : C.pol;

	begin_op();
	if (!C.failed && policy && !pol)
		return refuse("fork %d: no policy %s registered", pid, policy);
	return fork_task(pol, pid, cpu, affinity, nice, 0);
}

int uc_fork_from(int parent, int pid)
{
	struct uc_task *t = task(parent);
	struct task_struct *p = t ? t->p : NULL;

	begin_op();
	if (C.failed)
		return refuse("fork %d from %d: " FAILED_ALREADY, pid, parent, C.failure);
	if (!p)
		return refuse("fork %d from %d: no task %d", pid, parent, parent);
	if (!p->saakm.policy)
		return refuse("fork %d from %d: task %d is in no policy", pid, parent, parent);
	return fork_task(p->saakm.policy, pid, task_cpu(p), usim_task_affinity(p), usim_task_nice(p),
			 p->saakm.runtime);
}

static bool running(struct uc_task *t)
{
	return t && t->queued && C.cpus[task_cpu(t->p)].curr == t->p;
}

/* Refuse @op of task @pid (@t), which only a running task can do. */
static int refuse_not_running(const char *op, int pid, struct uc_task *t)
{
	int cpu;

	if (!t)
		return refuse("%s %d: no task %d", op, pid, pid);
	if (!t->queued)
		return refuse("%s %d: task %d is not running: it sleeps", op, pid, pid);
	cpu = task_cpu(t->p);
	return refuse("%s %d: task %d is not running: it waits on cpu %d, which runs %d", op, pid,
		      pid, cpu, uc_curr(cpu));
}

int uc_wake(int pid)
{
	struct uc_task *t = task(pid);
	int prev, cpu;

	begin_op();
	if (C.failed)
		return refuse("wake %d: " FAILED_ALREADY, pid, C.failure);
	if (!t)
		return refuse("wake %d: no task %d", pid, pid);
	if (running(t))
		return refuse("wake %d: task %d is running (on cpu %d)", pid, pid, task_cpu(t->p));
	if (t->queued)
		return refuse("wake %d: task %d is already runnable (waiting on cpu %d)", pid, pid,
			      task_cpu(t->p));
	if (!t->p->saakm.policy)
		return refuse("wake %d: task %d is in no policy", pid, pid);
	prev = task_cpu(t->p);
	trace_op("wake", pid, prev);
	/* select_task_rq(): the class is asked only for a task that may use
	 * more than one CPU; the core falls back from a CPU it may not use. */
	if (t->p->nr_cpus_allowed == 1) {
		cpu = cpumask_first(t->p->cpus_ptr);
	} else if (usim_has_callback(t->p->saakm.policy, SAAKM_EV_UNBLOCK_PREPARE)) {
		int idle = llc_idle(t->p, prev);

		cpu = usim_call(t->p->saakm.policy, SAAKM_EV_UNBLOCK_PREPARE, prev, t->p, -1);
		cpu = checked_cpu(t->p, cpu, prev, "unblock_prepare");
		check_llc(t->p, "unblock_prepare", prev, idle, cpu);
	} else {
		cpu = prev;	/* the default: its last CPU, which the core may overrule */
	}
	cpu = core_cpu(t->p, cpu);
	usim_set_task_cpu(t->p, cpu);
	enqueue(t->p, cpu, true);
	if (!C.failed)
		preempt_check(t->p, cpu);
	return done();
}

int uc_block(int pid)
{
	struct uc_task *t = task(pid);
	int cpu;

	begin_op();
	if (C.failed)
		return refuse("block %d: " FAILED_ALREADY, pid, C.failure);
	if (!running(t))
		return refuse_not_running("block", pid, t);
	cpu = task_cpu(t->p);
	trace_op("block", pid, cpu);
	dequeue(t->p, true);
	resched(cpu);
	return done();
}

int uc_yield(int pid)
{
	struct uc_task *t = task(pid);
	int cpu;

	begin_op();
	if (C.failed)
		return refuse("yield %d: " FAILED_ALREADY, pid, C.failure);
	if (!running(t))
		return refuse_not_running("yield", pid, t);
	cpu = task_cpu(t->p);
	trace_op("yield", pid, cpu);
	update_curr(cpu);
	usim_call(t->p->saakm.policy, SAAKM_EV_YIELD, cpu, t->p, -1);
	resched(cpu);
	return done();
}

int uc_exit(int pid)
{
	struct uc_task *t = task(pid);
	struct task_struct *p;
	int cpu;

	begin_op();
	if (C.failed)
		return refuse("exit %d: " FAILED_ALREADY, pid, C.failure);
	if (!t)
		return refuse("exit %d: no task %d", pid, pid);
	/* A task exits running: it leaves its CPU (block), then task_dead. */
	if (t->queued && !running(t))
		return refuse_not_running("exit", pid, t);
	p = t->p;
	cpu = task_cpu(p);
	trace_notable("exit task %d", pid);
	if (t->queued) {
		dequeue(p, true);
		resched(cpu);
	}
	if (p->saakm.policy) {
		struct saakm_policy *pol = p->saakm.policy;

		if (p->saakm.state != SAAKM_TERMINATED) {
			usim_call(pol, SAAKM_EV_TERMINATE, cpu, p, -1);
			if (p->saakm.state != saakm_left_state(SAAKM_EV_TERMINATE)) {
				eject(CALLBACK, SAAKM_ERR_LEFT_STATE,
				      saakm_event_name(SAAKM_EV_TERMINATE), pid,
				      usim_state_name(p->saakm.state));
				force(p, SAAKM_TERMINATED);
			}
		}
		usim_call(pol, SAAKM_EV_FREE_METADATA, cpu, p, -1);
	}
	t->alive = false;
	usim_task_free(p);
	t->p = NULL;
	return done();
}

/* Move a runnable task to @dst as the class does (move_queued_task()). */
static void move_task(struct task_struct *p, int dst)
{
	int src = task_cpu(p);
	bool was_curr = C.cpus[src].curr == p;

	uc_trace("class: move task %d cpu %d -> %d", p->pid, src, dst);
	dequeue(p, false);
	if (was_curr) {
		usim_set_on_cpu(p, 0);
		C.cpus[src].curr = NULL;
	}
	usim_set_task_cpu(p, dst);
	enqueue(p, dst, false);
	if (!C.failed)
		preempt_check(p, dst);
	if (was_curr && !C.failed)
		resched(src);
}

int uc_set_affinity(int pid, unsigned long long mask)
{
	struct uc_task *t = task(pid);
	unsigned long long asked = mask;
	struct task_struct *p;
	int cpu;

	begin_op();
	if (nr_cpu_ids < 64)
		mask &= (1ULL << nr_cpu_ids) - 1;
	if (C.failed)
		return refuse("affinity %d := %#llx: " FAILED_ALREADY, pid, asked, C.failure);
	if (!t)
		return refuse("affinity %d := %#llx: no task %d", pid, asked, pid);
	if (!mask)
		return refuse("affinity %d := %#llx: the mask has none of the %d cpus", pid,
			      asked, nr_cpu_ids);
	p = t->p;
	/* No online CPU in the mask: sched_setaffinity() fails with EINVAL. */
	for (cpu = 0; cpu < C.o.nr_cpus; cpu++)
		if ((mask >> cpu & 1) && C.cpus[cpu].online)
			break;
	if (cpu == C.o.nr_cpus)
		return refuse("affinity %d := %#llx: no online cpu in the mask", pid, asked);
	trace_notable("affinity task %d := %#llx", pid, mask);
	/* A save/restore pair: the policy is not told, the task stays queued. */
	usim_set_affinity(p, mask);
	cpu = task_cpu(p);
	if (t->queued && !cpumask_test_cpu(cpu, p->cpus_ptr))
		move_task(p, fallback_cpu(p));
	return done();
}

int uc_setattr(int pid, int nice, unsigned long long runtime_ns, int *err)
{
	return uc_setattr_blob(pid, nice, runtime_ns, NULL, 0, err);
}

int uc_setattr_blob(int pid, int nice, unsigned long long runtime_ns, const void *data,
		    unsigned int size, int *err)
{
	struct uc_task *t = task(pid);
	int old_nice, ret;
	unsigned long long old_runtime;
	struct task_struct *p;

	begin_op();
	if (err)
		*err = 0;
	if (C.failed)
		return refuse("setattr %d: " FAILED_ALREADY, pid, C.failure);
	if (!t)
		return refuse("setattr %d: no task %d", pid, pid);
	p = t->p;
	uc_trace("setattr task %d: nice %d, runtime %llu ns", pid, nice, runtime_ns);
	if (nice < -20 || nice > 19) {
		if (err)
			*err = -EINVAL;	/* the class refuses it before the policy sees it */
		return done();
	}
	/* checkparam_attr sees the attributes asked for; refused, they are undone. */
	old_nice = usim_task_nice(p);
	old_runtime = p->saakm.runtime;
	usim_set_nice(p, nice);
	usim_set_sched_runtime(p, runtime_ns);
	usim_set_attr_data(data, size);
	ret = usim_call(p->saakm.policy, SAAKM_EV_CHECKPARAM_ATTR, task_cpu(p), p, -1);
	if (ret) {
		usim_set_nice(p, old_nice);
		usim_set_sched_runtime(p, old_runtime);
		if (err)
			*err = ret;
	} else {
		usim_call(p->saakm.policy, SAAKM_EV_SETPARAM_ATTR, task_cpu(p), p, -1);
	}
	usim_set_attr_data(NULL, 0);	/* the blob was the caller's, for this call */
	return done();
}

const struct uc_kick_stats *uc_kick_stats(void)
{
	return &C.kst;
}

int uc_set_nice(int pid, int nice)
{
	struct uc_task *t = task(pid);

	begin_op();
	if (C.failed)
		return refuse("nice %d := %d: " FAILED_ALREADY, pid, nice, C.failure);
	if (!t)
		return refuse("nice %d := %d: no task %d", pid, nice, pid);
	if (nice < -20 || nice > 19)
		return refuse("nice %d := %d: nice out of range -20..19", pid, nice);
	uc_trace("nice task %d := %d", pid, nice);
	usim_set_nice(t->p, nice);
	usim_call(t->p->saakm.policy, SAAKM_EV_SETPARAM_ATTR, task_cpu(t->p), t->p, -1);
	return done();
}

int uc_cpu_down(int cpu)
{
	struct uc_cpu *c;
	int pid, other, n;

	begin_op();
	if (C.failed)
		return refuse("cpu_down %d: " FAILED_ALREADY, cpu, C.failure);
	if (!cpu_valid(cpu))
		return refuse("cpu_down %d: no cpu %d (%d cpus)", cpu, cpu, C.o.nr_cpus);
	if (!C.cpus[cpu].online)
		return refuse("cpu_down %d: cpu %d is offline already", cpu, cpu);
	for (other = 0; other < C.o.nr_cpus; other++)
		if (other != cpu && C.cpus[other].online)
			break;
	if (other == C.o.nr_cpus)
		return refuse("cpu_down %d: cpu %d is the last online cpu", cpu, cpu);
	c = &C.cpus[cpu];
	trace_notable("cpu %d goes down", cpu);
	update_curr(cpu);
	c->online = false;	/* inactive: nothing new lands here */
	usim_set_cpu_online(cpu, 0);
	/* balance_push(): the running task first, then every other one. */
	if (c->curr && T(c->curr)->queued)
		move_task(c->curr, fallback_cpu(c->curr));
	c->curr = NULL;
	for (pid = 0; pid < C.nr_pids && !C.failed; pid++) {
		struct uc_task *t = &C.tasks[pid];

		if (t->alive && t->queued && (int)task_cpu(t->p) == cpu)
			move_task(t->p, fallback_cpu(t->p));
	}
	/* saakm_cpu_dying(): close the bracket. */
	for (n = 0; n < usim_nr_policies(); n++)
		usim_call(usim_policy_nth(n), SAAKM_EV_CORE_EXIT, cpu, NULL, -1);
	return done();
}

int uc_cpu_up(int cpu)
{
	int n;

	begin_op();
	if (C.failed)
		return refuse("cpu_up %d: " FAILED_ALREADY, cpu, C.failure);
	if (!cpu_valid(cpu))
		return refuse("cpu_up %d: no cpu %d (%d cpus)", cpu, cpu, C.o.nr_cpus);
	if (C.cpus[cpu].online)
		return refuse("cpu_up %d: cpu %d is online already", cpu, cpu);
	trace_notable("cpu %d comes up", cpu);
	/* saakm_cpu_starting() runs before the CPU is marked online. */
	for (n = 0; n < usim_nr_policies(); n++)
		usim_call(usim_policy_nth(n), SAAKM_EV_CORE_ENTRY, cpu, NULL, -1);
	C.cpus[cpu].online = true;
	C.cpus[cpu].curr = NULL;
	C.cpus[cpu].ready_since = usim_now_ns();
	usim_set_cpu_online(cpu, 1);
	return done();
}

/* task_tick_saakm() on @cpu. */
static void tick(int cpu)
{
	struct task_struct *p = C.cpus[cpu].curr;

	update_curr(cpu);
	if (!p || !p->saakm.policy || !T(p)->queued)
		return;
	usim_call(p->saakm.policy, SAAKM_EV_TICK, cpu, p, -1);
	if (p->saakm.state == SAAKM_READY_TICK)
		resched(cpu);
}

/* Periodic balancing (balancing_select), every balance_ms on each CPU. */
static void periodic_balance(struct saakm_policy *pol, int cpu)
{
	struct uc_cpu *c = &C.cpus[cpu];
	unsigned int ms = usim_policy_balance_ms(pol);
	int n = rank(pol);
	int src;

	if (!ms || !usim_has_callback(pol, SAAKM_EV_BALANCING_SELECT) || !usim_policy_has_tasks(pol) ||
	    usim_now_ns() < c->next_balance[n])
		return;
	c->next_balance[n] = usim_now_ns() + ms * 1000000ULL;
	src = usim_call(pol, SAAKM_EV_BALANCING_SELECT, cpu, NULL, -1);
	if (valid_src(src, cpu)) {
		pull(pol, src, cpu);
		if (!C.failed && (!c->curr || !T(c->curr)->queued))
			resched(cpu);
	}
}

int uc_advance(unsigned long long ns)
{
	unsigned long long until = usim_now_ns() + ns;
	int cpu, n;

	begin_op();
	if (C.failed)
		return refuse("advance %llu ns: " FAILED_ALREADY, ns, C.failure);
	while (C.next_tick <= until && !C.failed) {
		usim_set_now_ns(C.next_tick);
		for (cpu = 0; cpu < C.o.nr_cpus && !C.failed; cpu++) {
			if (!C.cpus[cpu].online)
				continue;
			tick(cpu);
			for (n = 0; n < usim_nr_policies() && !C.failed; n++)
				periodic_balance(usim_policy_nth(n), cpu);
			deliver_kicks();
		}
		if (!C.failed)
			uc_check();
		check_stalls();
		C.next_tick += C.o.tick_ns;
	}
	usim_set_now_ns(until);
	for (cpu = 0; cpu < C.o.nr_cpus; cpu++)
		if (C.cpus[cpu].online)
			update_curr(cpu);
	return done();
}

int uc_upgrade(int module)
{
	int ret;

	begin_op();
	if (C.failed)
		return refuse("upgrade: " FAILED_ALREADY, C.failure);
	trace_notable("upgrade: load module %d", module);
	ret = usim_load_module(module);
	if (!ret)
		C.module = module;
	return done() ? -1 : ret;
}

int uc_unload_module(int module)
{
	begin_op();
	if (C.failed)
		return refuse("unload of module %d: " FAILED_ALREADY, module, C.failure);
	trace_notable("unload module %d", module);
	usim_unload_module(module);
	return done();
}

int uc_unload(void)
{
	int pid, cpu;
	long held;

	begin_op();
	if (C.failed)
		return refuse("unload: " FAILED_ALREADY, C.failure);
	trace_notable("unload");
	/* The drain: tasks leave the CPUs and the class (they go to EEVDF). */
	C.kick_pending = false;
	for (cpu = 0; cpu < C.o.nr_cpus; cpu++) {
		C.cpus[cpu].kicked = false;
		if (C.cpus[cpu].curr)
			usim_set_on_cpu(C.cpus[cpu].curr, 0);
		C.cpus[cpu].curr = NULL;
		INIT_LIST_HEAD(&C.cpus[cpu].parked);
	}
	for (pid = 0; pid < C.nr_pids; pid++)
		if (C.tasks[pid].alive)
			INIT_LIST_HEAD(&C.tasks[pid].p->saakm.core_node);
	usim_unload_module(C.module);
	C.pol = NULL;
	C.kick_pending = false;	/* kicks of a policy gone: the kernel drops them too */
	for (pid = 0; pid < C.nr_pids && !C.failed; pid++) {
		struct uc_task *t = &C.tasks[pid];

		if (!t->alive)
			continue;
		if (t->p->saakm.policy)
			fail("unload: task %d still attached", pid);
		t->alive = false;
		usim_task_free(t->p);
		t->p = NULL;
	}
	held = usim_alloc_outstanding();
	if (held && !C.failed)
		fail("unload: the policy still holds %ld allocation(s) (kmalloc/alloc_percpu)", held);
	if (usim_nr_timers() && !C.failed)
		fail("unload: %d hrtimer(s) still armed", usim_nr_timers());
	if (usim_nr_policies() && !C.failed)
		fail("unload: %d policy(ies) still registered", usim_nr_policies());
	return C.failed ? -1 : 0;
}

/* Queries. */

int uc_curr(int cpu)
{
	return cpu_valid(cpu) && C.cpus[cpu].curr ? C.cpus[cpu].curr->pid : -1;
}

int uc_cpu_of(int pid)
{
	struct uc_task *t = task(pid);

	return t ? (int)task_cpu(t->p) : -1;
}

int uc_state(int pid)
{
	struct uc_task *t = task(pid);

	return t ? (int)t->p->saakm.state : -1;
}

int uc_runnable(int pid)
{
	struct uc_task *t = task(pid);

	return t && t->queued;
}

int uc_exists(int pid)
{
	return task(pid) != NULL;
}

unsigned long long uc_runtime(int pid)
{
	struct uc_task *t = task(pid);

	if (!t)
		return 0;
	if (running(t))
		update_curr(task_cpu(t->p));
	return t->p->se.sum_exec_runtime;
}

unsigned long long uc_affinity(int pid)
{
	struct uc_task *t = task(pid);

	return t ? usim_task_affinity(t->p) : 0;
}

int uc_online(int cpu)
{
	return cpu_valid(cpu) && C.cpus[cpu].online;
}

int uc_nr_cpus(void)
{
	return C.o.nr_cpus;
}

struct saakm_policy *uc_policy(void)
{
	return C.pol;
}

unsigned long long uc_calls(int ev)
{
	return ev >= 0 && ev < (int)ARRAY_SIZE(C.calls) ? C.calls[ev] : 0;
}

unsigned int uc_nr_ready(int cpu)
{
	return C.pol && cpu_valid(cpu) ? usim_policy_nr_ready(C.pol, cpu) : 0;
}
