/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the SaaKM class: every policy call (saakm_event), every
 * task state change a policy makes (saakm_state), and the idle time each
 * CPU passes to the class's deadline server (saakm_server_idle). Record them with
 * trace-cmd record -e saakm, or perf record -e 'saakm:*'. (The recorder for
 * replay has its own per-CPU arrays, kernel/sched/saakm_record.c.) Events and states
 * are printed by name: the names come from the lists in <uapi/linux/saakm.h>,
 * and TRACE_DEFINE_ENUM lets trace-cmd and perf resolve them too.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM saakm

#if !defined(_TRACE_SAAKM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SAAKM_H

#include <linux/saakm.h>
#include <linux/tracepoint.h>

#undef SAAKM_TRACE_STATE
#undef SAAKM_TRACE_EVENT
#define SAAKM_TRACE_STATE(NAME)		TRACE_DEFINE_ENUM(SAAKM_##NAME);
#define SAAKM_TRACE_EVENT(NAME, name)	TRACE_DEFINE_ENUM(SAAKM_EV_##NAME);
SAAKM_STATES(SAAKM_TRACE_STATE)
SAAKM_EVENTS(SAAKM_TRACE_EVENT)

#undef SAAKM_STATE_SYM
#undef SAAKM_EVENT_SYM
#define SAAKM_STATE_SYM(NAME)		{ SAAKM_##NAME, #NAME },
#define SAAKM_EVENT_SYM(NAME, name)	{ SAAKM_EV_##NAME, #name },
#define saakm_show_state(s)	\
	__print_symbolic(s, SAAKM_STATES(SAAKM_STATE_SYM) { SAAKM_NR_STATES, "?" })
#define saakm_show_event(e)	\
	__print_symbolic(e, SAAKM_EVENTS(SAAKM_EVENT_SYM) { SAAKM_NR_EVENTS, "?" })

TRACE_EVENT(saakm_event,

	TP_PROTO(const char *policy, int pid, int cpu, int event),

	TP_ARGS(policy, pid, cpu, event),

	TP_STRUCT__entry(
		__string(policy, policy)
		__field(int, pid)
		__field(int, cpu)
		__field(int, event)
	),

	TP_fast_assign(
		__assign_str(policy);
		__entry->pid = pid;
		__entry->cpu = cpu;
		__entry->event = event;
	),

	TP_printk("policy=%s pid=%d cpu=%d event=%s", __get_str(policy),
		  __entry->pid, __entry->cpu, saakm_show_event(__entry->event))
);

TRACE_EVENT(saakm_state,

	TP_PROTO(const char *policy, int pid, int cpu, int from, int to),

	TP_ARGS(policy, pid, cpu, from, to),

	TP_STRUCT__entry(
		__string(policy, policy)
		__field(int, pid)
		__field(int, cpu)
		__field(int, from)
		__field(int, to)
	),

	TP_fast_assign(
		__assign_str(policy);
		__entry->pid = pid;
		__entry->cpu = cpu;
		__entry->from = from;
		__entry->to = to;
	),

	TP_printk("policy=%s pid=%d cpu=%d from=%s to=%s", __get_str(policy),
		  __entry->pid, __entry->cpu, saakm_show_state(__entry->from),
		  saakm_show_state(__entry->to))
);

/* Idle time a CPU passes to the class's deadline server (saakm_server_idle()). */
TRACE_EVENT(saakm_server_idle,

	TP_PROTO(int cpu, s64 idle_ns),

	TP_ARGS(cpu, idle_ns),

	TP_STRUCT__entry(
		__field(int, cpu)
		__field(s64, idle_ns)
	),

	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->idle_ns = idle_ns;
	),

	TP_printk("cpu=%d idle_ns=%lld", __entry->cpu, __entry->idle_ns)
);

#endif /* _TRACE_SAAKM_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
