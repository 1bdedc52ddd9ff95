#!/bin/bash
# The runner must fail a test during which the kernel reported a problem,
# and show the offending lines: a nested run (one short boot) of the opt-in
# guest test warn_detected, whose module WARNs. (Sleeping in a policy
# callback is checked on the debug kernel: t_debug_catches_sleep.sh.)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(bash "$root/tests/run.sh" --no-build --no-host -t warn_detected --timeout 300 2>&1)
rc=$?
echo "$out" | sed 's/^/# nested: /'
n=0 fail=0
t() { n=$((n + 1)); if eval "$2"; then echo "ok $n $1"; else echo "not ok $n $1"; fail=1; fi; }
t "nested run exits non-zero" '[ "$rc" -ne 0 ]'
t "WARNING line shown" 'grep -q "WARNING: CPU: .*saakm_warn_on_load" <<<"$out"'
t "WARN message shown" 'grep -q "deliberate warning for the test runner" <<<"$out"'
t "warn_detected counted as failed" 'grep -q "^FAIL  warn_detected .*WARNING" <<<"$out"'
t "summary line printed" 'grep -qE "^[0-9]+ passed, [1-9][0-9]* failed" <<<"$out"'
echo "1..$n"
exit $fail
