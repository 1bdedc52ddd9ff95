#!/bin/bash
# Harness test: on the debug kernel, a policy that calls a function that may sleep in a
# callback (atomic context) is reported ("sleeping function called from
# invalid context"), the runner fails the test that was running, and the
# kernel goes on. A nested run of the opt-in guest test sleep_in_callback
# (one short boot). The fault takes a mutex that is always free, so it never
# really sleeps: this cannot deadlock, unlike the msleep() it replaced.
# (The normal kernel, without CONFIG_DEBUG_ATOMIC_SLEEP, cannot see it.)
# It boots a debug guest of its own (about 90 s), so it runs in make
# test-full's debug pass: in make test, the build's configuration check
# proves CONFIG_DEBUG_ATOMIC_SLEEP is set, logscan's samples that the
# report is recognised, and runner_catches_warn that a report fails the
# test that was running. By hand:
#   KERNEL_VARIANT=debug make -s modules SKIP_KERNEL=1 KEEP_GOING=1 &&
#   KERNEL_VARIANT=debug bash tests/run.sh --no-build -t debug_catches_sleep
# saakm-test: debug-only
# saakm-test: full-only
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
. "$root/tests/guest/tap.sh"
. "$root/tests/harness/nested.sh"
nested_run -t sleep_in_callback --timeout 600
log=$root/build/results/latest/sleep_in_callback.log
check "nested run exits non-zero" [ "$rc" -ne 0 ]
check "the sleeping call in atomic context is reported" \
	grep -q "sleeping function called from invalid context" <<<"$out"
check "the report names the policy" grep -q "saakm_faulty" <<<"$out"
check_not "nothing really slept: no 'scheduling while atomic'" \
	grep -q "scheduling while atomic" <<<"$out"
check "sleep_in_callback counted as failed, for the kernel report" \
	grep -q "FAIL  .*sleep_in_callback .*kernel" <<<"$out"
check "the guest log of sleep_in_callback exists" [ -s "$log" ]
check_not "every check of sleep_in_callback passed in the guest" grep -q "^not ok" "$log"
check "the kernel did not hang: the test got to its end" \
	grep -qE "^ok [0-9]+ the kernel is still running" "$log"
done_testing
