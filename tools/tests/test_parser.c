// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of libsaakm: the /proc/saakm record reader and its typed
 * helpers (policies, events, errors, cpus) against the fixture directories
 * in tools/tests/fixtures (via SAAKM_PROC), the name tables built from
 * <linux/saakm.h>, name/id resolution, error messages, and the "no SaaKM
 * kernel" and argument errors that need no SaaKM kernel. Prints TAP
 * (tests/guest/tap.h); exits 1 if anything failed.
 * Usage: test_parser FIXTURES_DIR
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "saakm.h"
#include "tap.h"

static void use(const char *fixtures, const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", fixtures, dir);
	setenv("SAAKM_PROC", path, 1);
}

static void test_names(void)
{
	TAP_CHECK(SAAKM_NR_STATES == 7 && !strcmp(saakm_state_names[SAAKM_ST_READY], "READY") &&
		  !strcmp(saakm_state_names[SAAKM_NR_STATES - 1], "TERMINATED"),
		  "names: task states from SAAKM_STATES");
	TAP_CHECK(!strcmp(saakm_event_names[0], "new_prepare") &&
		  !strcmp(saakm_event_names[SAAKM_EV_MIGRATED], "migrated") &&
		  !strcmp(saakm_event_names[SAAKM_EV_PREEMPT], "preempt") &&
		  SAAKM_EV_PREEMPT == SAAKM_EV_MIGRATED + 1 &&
		  SAAKM_EV_PREEMPT == SAAKM_NR_EVENTS - 1,
		  "names: events from SAAKM_EVENTS, in enum order (preempt appended last)");
	TAP_CHECK(SAAKM_NR_POLICY_STATES == 3 &&
		  !strcmp(saakm_policy_state_names[SAAKM_POLICY_EJECTED], "ejected"),
		  "names: policy states from SAAKM_POLICY_STATES");
	TAP_CHECK(saakm_event_index("balance_pick") == SAAKM_EV_BALANCE_PICK &&
		  saakm_state_index("RUNNING") == SAAKM_ST_RUNNING &&
		  saakm_policy_state_index("disabling") == SAAKM_POLICY_DISABLING,
		  "names: index by name");
	TAP_CHECK(saakm_event_index("nosuch") == -1 && saakm_event_index(NULL) == -1 &&
		  saakm_state_index("ready") == -1, "names: unknown (or wrong case) is -1");
}

static void test_record(void)
{
	struct saakm_record rec;
	long long v;

	TAP_CHECK(saakm_record_parse(&rec, "id=3 name=fifo  tasks=12\n") == 3,
		  "record: three fields, extra spaces and newline ignored");
	TAP_CHECK(!strcmp(saakm_record_get(&rec, "name"), "fifo") &&
		  !saakm_record_num(&rec, "tasks", &v) && v == 12, "record: lookup by key");
	TAP_CHECK(!saakm_record_get(&rec, "state") && saakm_record_num(&rec, "state", &v) == -ENOENT,
		  "record: missing key is NULL / -ENOENT");
	TAP_CHECK(saakm_record_num(&rec, "name", &v) == -EINVAL, "record: non-number is -EINVAL");
	TAP_CHECK(saakm_record_parse(&rec, "name=f kind=stall reason=a b=c  d ") == 3 &&
		  !strcmp(saakm_record_get(&rec, "reason"), "a b=c  d "),
		  "record: reason= takes the rest of the line");
	TAP_CHECK(saakm_record_parse(&rec, "") == 0 && saakm_record_parse(&rec, "x y =z") == 0 &&
		  saakm_record_parse(&rec, NULL) == 0, "record: no key=value field is not a record");
	TAP_CHECK(saakm_record_parse(&rec, "a= b=1") == 2 && !strcmp(saakm_record_get(&rec, "a"), ""),
		  "record: empty value");
}

static void test_basic(const char *fx)
{
	struct saakm_policy_info pi[8];
	struct saakm_cpu_info ci[8];
	struct saakm_events ev;
	struct saakm_error err;
	char name[SAAKM_NAME_LEN];
	int ret;

	use(fx, "basic");
	ret = saakm_list(pi, 8);
	TAP_CHECK(ret == 3, "policies: three listed");
	TAP_CHECK(pi[0].id == 1 && !strcmp(pi[0].name, "fifo") && pi[0].tasks == 3 &&
		  !strcmp(pi[0].state, "enabled") && pi[0].state_id == SAAKM_POLICY_ENABLED,
		  "policies: id, name, tasks, state");
	TAP_CHECK(pi[0].slot == 0 && pi[0].balance_ms == 0 && pi[0].timeout_ms == 5000 &&
		  pi[0].unprivileged == 0 && pi[1].slot == 1 && pi[1].balance_ms == 10 &&
		  pi[1].unprivileged == 1, "policies: slot, balance_ms, timeout_ms, unprivileged");
	TAP_CHECK(pi[1].id == 2 && pi[1].state_id == SAAKM_POLICY_DISABLING, "policies: disabling state");
	TAP_CHECK(pi[2].id == 7 && !strcmp(pi[2].name, "broken") &&
		  pi[2].state_id == SAAKM_POLICY_EJECTED, "policies: ejected state");
	memset(pi, 0, sizeof(pi));
	TAP_CHECK(saakm_list(pi, 1) == 3 && pi[0].id == 1 && pi[1].id == 0,
		  "list: returns the total, fills at most max");
	TAP_CHECK(saakm_list(NULL, 0) == 3, "list: NULL counts only");
	TAP_CHECK(!saakm_policy_get("rr_test", &pi[0]) && pi[0].id == 2 && pi[0].timeout_ms == 0,
		  "policy_get: by name");
	TAP_CHECK(saakm_policy_get("fif", &pi[0]) == -ENOENT && saakm_policy_get(NULL, &pi[0]) == -ENOENT,
		  "policy_get: unknown name is -ENOENT");
	TAP_CHECK(saakm_policy_tasks("fifo") == 3 && saakm_policy_tasks("broken") == 0 &&
		  saakm_policy_tasks("nosuch") == -ENOENT, "policy_tasks");
	TAP_CHECK(saakm_policy_id("fifo") == 1, "policy_id: by name");
	TAP_CHECK(saakm_policy_id("7") == 7, "policy_id: by decimal id");
	TAP_CHECK(saakm_policy_id("rr_test") == 2, "policy_id: name with underscore");
	TAP_CHECK(saakm_policy_id("nosuch") == -ENOENT, "policy_id: unknown name is -ENOENT");
	TAP_CHECK(saakm_policy_id("3") == -ENOENT, "policy_id: unloaded id is -ENOENT");
	TAP_CHECK(saakm_policy_id("1x") == -ENOENT && saakm_policy_id("") == -ENOENT &&
		  saakm_policy_id("-1") == -ENOENT && saakm_policy_id(NULL) == -ENOENT,
		  "policy_id: junk is -ENOENT");
	TAP_CHECK(saakm_policy_id("99999999999999999999") == -ENOENT,
		  "policy_id: overflow is -ENOENT");
	TAP_CHECK(saakm_policy_id("fif") == -ENOENT, "policy_id: no prefix match");
	TAP_CHECK(!saakm_policy_name(7, name, sizeof(name)) && !strcmp(name, "broken"),
		  "policy_name: id to name");
	TAP_CHECK(saakm_policy_name(5, name, sizeof(name)) == -ENOENT, "policy_name: unknown id");

	TAP_CHECK(!saakm_events_get("fifo", &ev) && ev.count[SAAKM_EV_SCHEDULE] == 42 &&
		  ev.count[SAAKM_EV_NEW_PLACE] == 10 && ev.count[SAAKM_EV_MIGRATED] == 3 &&
		  ev.count[SAAKM_EV_TICK] == 0 && ev.bad_transitions == 0,
		  "events: every SAAKM_EVENTS counter by enum");
	/* The fixture predates preempt: a column the kernel does not show. */
	TAP_CHECK(ev.count[SAAKM_EV_PREEMPT] == -1,
		  "events: a counter missing from /proc/saakm/events (older kernel) is -1");
	TAP_CHECK(saakm_event_count("rr_test", "unblock_place") == 5 &&
		  saakm_event_count("rr_test", "bad_transitions") == 2, "events: counter by name");
	TAP_CHECK(saakm_event_count("rr_test", "nosuch") == -ENOENT &&
		  saakm_event_count("nosuch", "tick") == -ENOENT &&
		  saakm_events_get("nosuch", &ev) == -ENOENT, "events: unknown policy or counter");

	TAP_CHECK(!saakm_error_get("broken", &err) && !strcmp(err.kind, "stall") &&
		  !strcmp(err.reason, "task 42 (spin) ready for 5004 ms on cpu 1 without running"),
		  "errors: kind and reason with spaces");
	TAP_CHECK(saakm_error_get("fifo", &err) == -ENOENT, "errors: policy not ejected");

	ret = saakm_cpus("fifo", ci, 8);
	TAP_CHECK(ret == 2 && ci[0].cpu == 0 && ci[0].ready == 2 && ci[0].picks == 1234 &&
		  ci[1].cpu == 1 && ci[1].parked == 1 && ci[1].picks == 99, "cpus: one policy's rows");
	TAP_CHECK(saakm_cpus(NULL, NULL, 0) == 6 && saakm_cpus("nosuch", ci, 8) == 0,
		  "cpus: every row; none for an unknown policy");
}

static void test_malformed(const char *fx)
{
	struct saakm_policy_info pi[8];
	struct saakm_cpu_info ci[4];
	struct saakm_error err;
	int ret;

	use(fx, "empty");
	TAP_CHECK(saakm_list(pi, 8) == 0, "empty: no policies");
	TAP_CHECK(saakm_policy_id("fifo") == -ENOENT, "empty: lookup is -ENOENT");
	TAP_CHECK(saakm_cpus(NULL, ci, 4) == 0 && saakm_event_count("fifo", "tick") == -ENOENT,
		  "empty: no cpus, no events");

	use(fx, "malformed");
	ret = saakm_list(pi, 8);
	TAP_CHECK(ret == 3, "malformed: only records with an id > 0 and a name count");
	TAP_CHECK(ret == 3 && pi[0].id == 4 && pi[1].id == 8 && pi[2].id == 9 &&
		  !strcmp(pi[2].name, "last") && pi[2].tasks == 2,
		  "malformed: good lines parsed, in any key order, last line without newline too");
	TAP_CHECK(pi[0].tasks == 1 && pi[0].unprivileged == 0, "malformed: an unknown key is ignored");
	TAP_CHECK(pi[1].state_id == -1 && !strcmp(pi[1].state, "mystery") && pi[1].slot == -1,
		  "malformed: unknown state and absent keys");
	TAP_CHECK(saakm_policy_id("5") == -ENOENT, "malformed: over-long name skipped");
	TAP_CHECK(saakm_event_count("good", "new_place") == -ENOENT &&
		  saakm_event_count("good", "bad_transitions") == 0,
		  "malformed: a counter that is not a number");
	TAP_CHECK(!saakm_error_get("good", &err) && !strcmp(err.kind, "watchdog") &&
		  !strcmp(err.reason, "second  reason  with=equals  and  spaces   "),
		  "malformed: the latest error of a policy, reason verbatim");
	TAP_CHECK(saakm_cpus("good", ci, 4) == 1 && ci[0].cpu == 3 && ci[0].parked == -1,
		  "malformed: a cpu row without a cpu number is skipped");
}

static void test_no_saakm(const char *fx)
{
	struct saakm_events ev;
	struct saakm_error err;

	use(fx, "does-not-exist");
	TAP_CHECK(saakm_list(NULL, 0) == -ENOSYS, "no /proc/saakm: list is -ENOSYS");
	TAP_CHECK(saakm_policy_id("fifo") == -ENOSYS, "no /proc/saakm: policy_id is -ENOSYS");
	TAP_CHECK(saakm_policy_id("1") == -ENOSYS, "no /proc/saakm: numeric policy_id is -ENOSYS");
	TAP_CHECK(saakm_events_get("fifo", &ev) == -ENOSYS && saakm_error_get("fifo", &err) == -ENOSYS &&
		  saakm_cpus(NULL, NULL, 0) == -ENOSYS && saakm_policy_tasks("fifo") == -ENOSYS,
		  "no /proc/saakm: events, errors, cpus, tasks are -ENOSYS");
}

int main(int argc, char **argv)
{
	static char big[SAAKM_ATTR_MAX_SIZE + 1];
	struct stat st;
	int ret, id = -1;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	test_names();
	test_record();
	test_basic(argv[1]);
	test_malformed(argv[1]);
	test_no_saakm(argv[1]);

	TAP_CHECK(!strcmp(saakm_strerror(-ENOSYS),
			  "this kernel has no SaaKM support (/proc/saakm is missing)"),
		  "strerror: no SaaKM message");
	TAP_CHECK(strstr(saakm_strerror(-EPERM), "needs CAP_SYS_NICE (try as root)") &&
		  saakm_strerror(EPERM) == saakm_strerror(-EPERM), "strerror: EPERM message");
	TAP_CHECK(strstr(saakm_strerror(-E2BIG), "4096"), "strerror: E2BIG message");
	TAP_CHECK(!strcmp(saakm_strerror(-EIO), strerror(EIO)), "strerror: others as strerror()");
	TAP_CHECK(!strcmp(saakm_sched_name(8), "SCHED_SAAKM") &&
		  !strcmp(saakm_sched_name(0), "SCHED_OTHER") &&
		  !strcmp(saakm_sched_name(42), "SCHED_UNKNOWN"), "sched_name");

	/* Argument checks done before any syscall. */
	TAP_CHECK(saakm_set(0, 1, big, sizeof(big), 0) == -E2BIG, "set: blob over 4096 is -E2BIG");
	TAP_CHECK(saakm_set_nice(0, 1, 0, NULL, 0, 0x80) == -EINVAL, "set: unknown flag is -EINVAL");
	TAP_CHECK(saakm_set(0, -1, NULL, 0, 0) == -EINVAL, "set: negative id is -EINVAL");
	TAP_CHECK(saakm_set(4194305, 1, NULL, 0, 0) == -ESRCH, "set: no such pid is -ESRCH");
	TAP_CHECK(saakm_get(4194305, &id) == -ESRCH, "get: no such pid is -ESRCH");
	ret = saakm_get(0, &id);
	TAP_CHECK(ret >= 0 && ret != SCHED_SAAKM && id == 0, "get: self is not SCHED_SAAKM, id 0");

	/* On a kernel without SaaKM, joining fails with -ENOSYS. */
	if (stat("/proc/saakm", &st) == 0) {
		tap_skip("set: -ENOSYS without SaaKM", "kernel has SaaKM");
		tap_skip("set KEEP: -ENOSYS without SaaKM", "kernel has SaaKM");
	} else {
		unsetenv("SAAKM_PROC");
		TAP_CHECK(saakm_set(0, 1, NULL, 0, 0) == -ENOSYS, "set: -ENOSYS without SaaKM");
		TAP_CHECK(saakm_set(0, SAAKM_ID_KEEP, NULL, 0, 0) == -ENOSYS,
			  "set KEEP: -ENOSYS without SaaKM");
		TAP_CHECK(saakm_get(0, NULL) >= 0, "get: works on a kernel without SaaKM");
	}
	return tap_done();
}
