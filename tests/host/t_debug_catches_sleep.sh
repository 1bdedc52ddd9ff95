#!/bin/bash
# On the debug kernel, a policy that sleeps in a callback (atomic context)
# is reported ("sleeping function called from invalid context"), the
# runner fails the test that was running, and the kernel does not hang.
# A nested run of the opt-in guest test sleep_in_callback (one short boot).
# (The normal kernel, without preemption counting, cannot see it.)
# saakm-test: debug-only
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(bash "$root/tests/run.sh" --no-build --no-host -t sleep_in_callback --timeout 600 2>&1)
rc=$?
echo "$out" | sed 's/^/# nested: /'
n=0 fail=0
t() { n=$((n + 1)); if eval "$2"; then echo "ok $n $1"; else echo "not ok $n $1"; fail=1; fi; }
t "nested run exits non-zero" '[ "$rc" -ne 0 ]'
t "the sleep in atomic context is reported" \
	'grep -qE "sleeping function called from invalid context|scheduling while atomic" <<<"$out"'
t "the report names the policy" 'grep -q "saakm_faulty" <<<"$out"'
t "sleep_in_callback counted as failed" 'grep -q "FAIL  .*sleep_in_callback .*kernel" <<<"$out"'
t "the kernel did not hang: the test got to its end" \
	'grep -q "^ok 3 the kernel is still running" "$root/build/results/latest/sleep_in_callback.log"'
echo "1..$n"
exit $fail
