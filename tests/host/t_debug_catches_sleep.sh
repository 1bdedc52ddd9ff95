#!/bin/bash
# On the debug kernel, a policy that calls a function that may sleep in a
# callback (atomic context) is reported ("sleeping function called from
# invalid context"), the runner fails the test that was running, and the
# kernel goes on. A nested run of the opt-in guest test sleep_in_callback
# (one short boot). The fault takes a mutex that is always free, so it never
# really sleeps: this cannot deadlock, unlike the msleep() it replaced.
# (The normal kernel, without CONFIG_DEBUG_ATOMIC_SLEEP, cannot see it.)
# Opt-in until it has proved reliable; run it by hand with
#   KERNEL_VARIANT=debug make -s modules SKIP_KERNEL=1 KEEP_GOING=1 &&
#   KERNEL_VARIANT=debug bash tests/run.sh --no-build -t debug_catches_sleep
# saakm-test: debug-only
# saakm-test: opt-in
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(bash "$root/tests/run.sh" --no-build --no-host -t sleep_in_callback --timeout 600 2>&1)
rc=$?
echo "$out" | sed 's/^/# nested: /'
log=$root/build/results/latest/sleep_in_callback.log
n=0 fail=0
t() { n=$((n + 1)); if eval "$2"; then echo "ok $n $1"; else echo "not ok $n $1"; fail=1; fi; }
t "nested run exits non-zero" '[ "$rc" -ne 0 ]'
t "the sleeping call in atomic context is reported" \
	'grep -q "sleeping function called from invalid context" <<<"$out"'
t "the report names the policy" 'grep -q "saakm_faulty" <<<"$out"'
t "nothing really slept: no 'scheduling while atomic'" \
	'! grep -q "scheduling while atomic" <<<"$out"'
t "sleep_in_callback counted as failed, for the kernel report" \
	'grep -q "FAIL  .*sleep_in_callback .*kernel" <<<"$out"'
t "every check of sleep_in_callback passed in the guest" \
	'[ -s "$log" ] && ! grep -q "^not ok" "$log"'
t "the kernel did not hang: the test got to its end" \
	'grep -qE "^ok [0-9]+ the kernel is still running" "$log"'
echo "1..$n"
exit $fail
