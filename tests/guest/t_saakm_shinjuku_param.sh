#!/bin/sh
# saakm_shinjuku's slice is validated, not clamped: a slice of
# 0, or below the 5 µs the policy can honour, is refused at load time with a
# message naming the parameter and its range, and a run-time write of a bad
# value through sysfs is refused too, leaving the old value in place.
# saakm-test: timeout=60
. "$(dirname "$0")/lib.sh"

ko=$SAAKM_ROOT/policies/shinjuku/saakm_shinjuku.ko
param=/sys/module/saakm_shinjuku/parameters/slice_us

# load_refused VALUE: insmod with slice_us=VALUE fails and says why
load_refused() {
	_before=$(log_since_start | grep -c 'saakm_shinjuku: slice_us=.* refused: allowed 5\.\.1000000')
	if insmod "$ko" "slice_us=$1" 2>/dev/null; then
		rmmod saakm_shinjuku
		return 1
	fi
	[ "$(log_since_start | grep -c 'saakm_shinjuku: slice_us=.* refused: allowed 5\.\.1000000')" -gt "$_before" ]
}

tap_subtest "load time"
for v in 0 1 4; do
	check "slice_us=$v is refused with a message" load_refused "$v"
done
check "no shinjuku policy registered after the refusals" test -z "$(policy_state shinjuku)"

tap_subtest "run time"
check "loads with slice_us=50" insmod "$ko" slice_us=50
check "slice_us reads 50" test "$(cat "$param")" = 50
check_not "writing 0 is refused" sh -c "echo 0 > $param"
check_not "writing 3 is refused" sh -c "echo 3 > $param"
check_not "writing a word is refused" sh -c "echo fast > $param"
check "slice_us still reads 50" test "$(cat "$param")" = 50
check "writing 200 is accepted" sh -c "echo 200 > $param"
check "slice_us reads 200" test "$(cat "$param")" = 200
check "rmmod saakm_shinjuku" rmmod saakm_shinjuku
done_testing
