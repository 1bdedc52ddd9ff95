/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the SaaKM class: every policy call (saakm_event) and every
 * task state change made by a policy (saakm_state). Enable them with
 * tracefs (events/saakm/) or perf, e.g. perf record -e 'saakm:*'.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM saakm

#if !defined(_TRACE_SAAKM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SAAKM_H

#include <linux/tracepoint.h>

#define saakm_show_state(s)						\
	__print_symbolic(s, { 0, "NOT_QUEUED" }, { 1, "READY" },	\
			 { 2, "READY_TICK" }, { 3, "RUNNING" },		\
			 { 4, "BLOCKED" }, { 5, "MIGRATING" },		\
			 { 6, "TERMINATED" })

TRACE_EVENT(saakm_event,

	TP_PROTO(const char *policy, int event, int cpu),

	TP_ARGS(policy, event, cpu),

	TP_STRUCT__entry(
		__string(policy, policy)
		__field(int, event)
		__field(int, cpu)
	),

	TP_fast_assign(
		__assign_str(policy);
		__entry->event = event;
		__entry->cpu = cpu;
	),

	TP_printk("policy=%s event=%d cpu=%d", __get_str(policy),
		  __entry->event, __entry->cpu)
);

TRACE_EVENT(saakm_state,

	TP_PROTO(const char *policy, int pid, int from, int to, int cpu),

	TP_ARGS(policy, pid, from, to, cpu),

	TP_STRUCT__entry(
		__string(policy, policy)
		__field(int, pid)
		__field(int, from)
		__field(int, to)
		__field(int, cpu)
	),

	TP_fast_assign(
		__assign_str(policy);
		__entry->pid = pid;
		__entry->from = from;
		__entry->to = to;
		__entry->cpu = cpu;
	),

	TP_printk("policy=%s pid=%d %s -> %s cpu=%d", __get_str(policy),
		  __entry->pid, saakm_show_state(__entry->from),
		  saakm_show_state(__entry->to), __entry->cpu)
);

#endif /* _TRACE_SAAKM_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
