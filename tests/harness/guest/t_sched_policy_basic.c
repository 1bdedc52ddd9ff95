// SPDX-License-Identifier: GPL-2.0
/*
 * Example C guest test: the calling task starts as SCHED_OTHER and can
 * switch itself to SCHED_BATCH and back. Compiled on the host into
 * build/tests/t_sched_policy_basic, run in the guest by run-suite.sh.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <errno.h>
#include "tap.h"

int main(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	TAP_CHECK(sched_getscheduler(0) == SCHED_OTHER, "task starts in SCHED_OTHER");
	if (sched_setscheduler(0, SCHED_BATCH, &sp))
		tap_not_ok("switch to SCHED_BATCH", "%s", strerror(errno));
	else
		TAP_CHECK(sched_getscheduler(0) == SCHED_BATCH, "switch to SCHED_BATCH");
	TAP_CHECK(sched_setscheduler(0, SCHED_OTHER, &sp) == 0, "switch back to SCHED_OTHER");
	return tap_done();
}
