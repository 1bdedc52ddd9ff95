#!/bin/bash
# Harness test: the runner must fail a test during which the kernel
# reported a problem, and show the offending lines: a nested run (one short
# boot) of the opt-in guest test warn_detected, whose module WARNs.
# (Sleeping in a policy callback is checked on the debug kernel:
# t_debug_catches_sleep.sh.)
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
. "$root/tests/guest/tap.sh"
. "$root/tests/harness/nested.sh"
nested_run -t warn_detected --timeout 300
check "nested run exits non-zero" [ "$rc" -ne 0 ]
check "WARNING line shown" grep -q "WARNING: CPU: .*saakm_warn_on_load" <<<"$out"
check "WARN message shown" grep -q "deliberate warning for the test runner" <<<"$out"
check "warn_detected counted as failed" grep -q "^FAIL  warn_detected .*WARNING" <<<"$out"
check "summary line printed" grep -qE "^[0-9]+ passed, [1-9][0-9]* failed" <<<"$out"
done_testing
