#!/bin/bash
# make test: the whole suite, twice.
#
#   1. the normal kernel (build/linux): host tests and every guest test,
#      then the tests that need more CPUs (WIDE_TESTS) in a guest of 4, and
#      the tests that judge guest time (ICOUNT_TESTS) in an icount guest
#   2. the debug kernel (build/linux-debug: lockdep, KASAN, UBSAN, atomic
#      sleep checks): every guest test again at a smaller scale; a lockdep,
#      KASAN or UBSAN report fails the run like any WARN
#
# Prints each pass's lines, then one total "N passed, N failed" line. Set
# DEBUG=0 to skip the second pass (a quicker local run); CI runs both.
# Arguments are passed to tests/run.sh (e.g. -t NAME).
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

run_pass() { # name, then tests/run.sh arguments; output kept in build/test-NAME.out
	local name=$1
	shift
	bash "$SAAKM_ROOT/tests/run.sh" "$@" | tee "$BUILD_DIR/test-$name.out"
}

counts() { # name -> "passed failed skipped" from the runner's last line
	tail -n 1 "$BUILD_DIR/test-$1.out" 2>/dev/null | awk '{ print $1 + 0, $3 + 0, $5 + 0 }'
}

# opt-in guest tests that need more than the suite's 2 vCPUs
WIDE_TESTS="saakm_wake_affinity"
# opt-in guest tests that judge guest time: in an icount guest the clock
# counts instructions, so a loaded host cannot stretch it while a vCPU runs
ICOUNT_TESTS="saakm_shinjuku_latency saakm_server_idle"

t0=$SECONDS
run_pass normal --no-build "$@"
read -r p1 f1 s1 < <(counts normal)
if [ $# -eq 0 ]; then
	echo
	echo "test: wide pass (4 vCPUs): $WIDE_TESTS"
	# shellcheck disable=SC2046 # one -t per test
	run_pass wide --no-build --no-host --cpus 4 $(printf -- '-t %s ' $WIDE_TESTS)
	read -r pw fw sw < <(counts wide)
	p1=$((p1 + pw)) f1=$((f1 + fw)) s1=$((s1 + sw))
	echo
	echo "test: icount pass (the guest clock counts instructions): $ICOUNT_TESTS"
	# shellcheck disable=SC2046 # one -t per test
	ICOUNT=1 run_pass icount --no-build --no-host $(printf -- '-t %s ' $ICOUNT_TESTS)
	read -r pc fc sc < <(counts icount)
	p1=$((p1 + pc)) f1=$((f1 + fc)) s1=$((s1 + sc))
fi
p2=0 f2=0 s2=0
if [ "${DEBUG:-1}" != 0 ]; then
	echo
	echo "test: debug kernel pass (lockdep, KASAN, UBSAN; smaller scale)"
	if KERNEL_VARIANT=debug make -s -C "$SAAKM_ROOT" kernel &&
		KERNEL_VARIANT=debug make -s -C "$SAAKM_ROOT" modules KEEP_GOING=1 SKIP_KERNEL=1; then
		KERNEL_VARIANT=debug SAAKM_DEBUG_PASS=1 SAAKM_CYCLES=20 SAAKM_STRESS_SECS=15 \
			SAAKM_FUZZ_ITERS=2000 SAAKM_TIMEOUT_SCALE=4 run_pass debug --no-build "$@"
		read -r p2 f2 s2 < <(counts debug)
	else
		echo "FAIL  debug/build  (the debug kernel or its modules did not build)"
		f2=1
	fi
	# Leave the modules built for the normal kernel, as the first pass found them.
	make -s -C "$SAAKM_ROOT" modules KEEP_GOING=1 SKIP_KERNEL=1 >/dev/null 2>&1
fi

echo
echo "test: both passes in $(fmt_secs $((SECONDS - t0)))"
total="$((p1 + p2)) passed, $((f1 + f2)) failed"
[ $((s1 + s2)) -gt 0 ] && total="$total, $((s1 + s2)) skipped"
echo "total: $total"
[ $((f1 + f2)) -eq 0 ] && [ $((p1 + p2)) -gt 0 ]
