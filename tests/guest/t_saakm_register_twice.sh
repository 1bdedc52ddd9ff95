#!/bin/sh
# A policy module that registers the same ops twice is refused the second
# time (registering a policy that is already registered must not
# reset or double the live one): saakm_probe twice=1 makes the second call
# at load and keeps its result in twice_err, which must be -EEXIST (-17).
# The first instance stays the only probe policy, enabled, and runs tasks.
. "$(dirname "$0")/lib.sh"

check "insmod saakm_probe twice=1" \
	insmod "$SAAKM_ROOT/tests/modules/saakm_probe/saakm_probe.ko" twice=1
check "the second registration was refused with EEXIST" \
	test "$(cat /sys/module/saakm_probe/parameters/twice_err)" = -17
check "probe is listed once" test "$("$SAAKM_CLI" list 2>/dev/null | grep -cw probe)" = 1
check "probe is enabled" test "$(policy_state probe)" = enabled
check "a task runs under probe" timeout 30 "$SAAKM_CLI" run -p probe -- true
check "rmmod saakm_probe" rmmod saakm_probe
saakm_log_clean
done_testing
