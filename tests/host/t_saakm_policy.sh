#!/bin/bash
# Host test: policy unit tests and seeded stress on libusim (tests/policy/run.sh),
# then the one-policy loop (make policy-test P=NAME) on the simulator's own
# self-test policy, which is not a policy to stress: its unit tests pass and
# its stress is skipped, not run and failed.
root=$(cd "$(dirname "$0")/../.." && pwd)
bash "$root/tests/policy/run.sh" || exit 1
out=$(bash "$root/tests/policy/run.sh" --policy usim_selftest 2>&1)
rc=$?
grep -E '^(not )?ok [0-9]+ usim_selftest' <<<"$out"
[ "$rc" = 0 ] && grep -q '^ok [0-9]* usim_selftest: stress # SKIP' <<<"$out"
