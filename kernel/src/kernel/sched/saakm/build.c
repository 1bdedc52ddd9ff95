// SPDX-License-Identifier: GPL-2.0
/*
 * The SaaKM class's files, compiled as one unit with the other scheduling
 * classes (kernel/sched/build_policy.c includes this file), so that they
 * see sched.h's static inlines as the classes next to them do. A file added
 * to the class is listed here, and nothing outside this folder changes.
 */
/*
 * The tracepoints are created here, before any file of the class includes
 * their header. ext.c, included before, leaves CREATE_TRACE_POINTS
 * defined: (re)define it for this header only.
 */
#define CREATE_TRACE_POINTS
#include <trace/events/saakm.h>
#undef CREATE_TRACE_POINTS

/* In layer order, from the bottom: see saakm.c for what each may call. */
#include "saakm_check.c"
#include "saakm_rq.c"
#include "saakm_record.c"
#include "saakm_eject.c"
#include "saakm_state.c"
#include "saakm_server.c"
#include "saakm_safety.c"
#include "saakm_lib.c"
#include "saakm_upgrade.c"
#include "saakm_policy.c"
#include "saakm.c"
#include "saakm_stats.c"
