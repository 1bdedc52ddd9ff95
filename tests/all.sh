#!/bin/bash
# make test and make test-full: the whole suite, on two kernels.
#
#   1. the normal kernel (build/linux): host tests and every guest test,
#      then the tests that need more CPUs (WIDE_TESTS) in a guest of 4, the
#      topology tests (SHAPE_TESTS) in a guest of each shape of
#      scripts/shapes.sh, the tests that judge guest time (ICOUNT_TESTS)
#      in an icount guest, and the policies at scale (SCALE_TESTS) in an
#      icount guest of 16 vCPUs
#   2. the debug kernel (build/linux-debug: lockdep, KASAN, UBSAN, atomic
#      sleep checks): every guest test again (SCALE_TESTS at a small size);
#      a lockdep, KASAN or UBSAN report fails the run like any WARN
#
# Two tiers run the same tests with the same runner:
#   make test       (CI) each test at the smallest size that still walks
#                   every path once, and each pass within a time budget
#                   (tests/run.sh --budget): a pass that grows past it fails
#                   with its ten slowest tests listed
#   make test-full  (--full) the long rounds and soaks: SAAKM_FULL=1 in the
#                   guest, tests tagged "full-only" too, no budget
#
# The debug kernel builds in the background at the idle priority
# (tests/debug-build.sh; make test starts it before the normal kernel), so
# that it takes only the time the normal build and pass leave.
#
# Prints each pass's lines, then one total "N passed, N failed" line. Set
# DEBUG=0 to skip the second pass (a quicker local run); CI runs both.
# Other arguments are passed to tests/run.sh (e.g. -t NAME).
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$(dirname "$0")/../scripts/shapes.sh"

full=
if [ "${1:-}" = --full ]; then
	full=1
	shift
fi
export SAAKM_FULL=${full:-0}

# Each pass's budget in the CI tier, in seconds of wall time on the 2-core
# build machine, boot included; measured times are in README.
BUDGET_NORMAL=1080
BUDGET_WIDE=120
BUDGET_SHAPE=150
BUDGET_ICOUNT=180
BUDGET_SCALE=300
BUDGET_DEBUG=1320

# budget SECS: the --budget argument of a pass (none in make test-full or
# when tests are selected by name)
budget() {
	[ -z "$full" ] && [ "$selected" = 0 ] && echo "--budget $1"
}

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
# guest tests run again in a guest of each shape (llc4, epyc8, smt16), and
# on the widest one only, the safety net's faults on 16 CPUs
SHAPE_TESTS="saakm_topology"
shape_tests() { # shape -> its tests
	case $1 in
	smt16) echo "$SHAPE_TESTS saakm_faults" ;;
	*) echo "$SHAPE_TESTS" ;;
	esac
}
# opt-in guest tests that judge guest time: in an icount guest the clock
# counts instructions, so a loaded host cannot stretch it while a vCPU runs
ICOUNT_TESTS="saakm_shinjuku_latency saakm_server_idle"
# the policies at scale: in an icount guest of the widest shape, whose
# clock does not run while the host leaves a vCPU waiting (without icount,
# 16 vCPUs on 2 host CPUs stop for seconds at a time); at the CI size, with
# no hotplug, in make test-full too (make test-scale runs the soak)
SCALE_TESTS="saakm_scale"
SCALE_SHAPE=smt16

selected=$#
t0=$SECONDS
tier=${full:+full (make test-full)}
echo "test: tier ${tier:-CI (make test; make test-full runs the long rounds)}"

[ "${DEBUG:-1}" != 0 ] && bash "$SAAKM_ROOT/tests/debug-build.sh" start

# shellcheck disable=SC2046 # budget's words are arguments
run_pass normal --no-build $(budget $BUDGET_NORMAL) "$@"
read -r p1 f1 s1 < <(counts normal)
if [ $# -eq 0 ]; then
	echo
	echo "test: wide pass (4 vCPUs): $WIDE_TESTS"
	# shellcheck disable=SC2046 # one -t per test
	run_pass wide --no-build --no-host --cpus 4 $(budget $BUDGET_WIDE) $(printf -- '-t %s ' $WIDE_TESTS)
	read -r pw fw sw < <(counts wide)
	p1=$((p1 + pw)) f1=$((f1 + fw)) s1=$((s1 + sw))
	for shape in $SAAKM_SHAPES; do
		echo
		echo "test: $shape pass ($(saakm_shape "$shape" | awk '{ print $1 " vCPUs: " $2 " socket(s), " $3 " dies each, " $4 " cores each, " $5 " thread(s) each, " $6 " node(s)" }')): $(shape_tests "$shape")"
		# shellcheck disable=SC2046 # one -t per test
		run_pass "$shape" --no-build --no-host --shape "$shape" $(budget $BUDGET_SHAPE) $(printf -- '-t %s ' $(shape_tests "$shape"))
		read -r pw fw sw < <(counts "$shape")
		p1=$((p1 + pw)) f1=$((f1 + fw)) s1=$((s1 + sw))
	done
	echo
	echo "test: icount pass (the guest clock counts instructions): $ICOUNT_TESTS"
	# The idle-priority build would still take the host's idle time, which
	# an icount guest's clock does not skip: it waits for the build.
	debug_rc=0
	[ "${DEBUG:-1}" != 0 ] && { bash "$SAAKM_ROOT/tests/debug-build.sh" wait || debug_rc=$?; }
	# shellcheck disable=SC2046 # one -t per test
	ICOUNT=1 run_pass icount --no-build --no-host $(budget $BUDGET_ICOUNT) $(printf -- '-t %s ' $ICOUNT_TESTS)
	read -r pc fc sc < <(counts icount)
	p1=$((p1 + pc)) f1=$((f1 + fc)) s1=$((s1 + sc))
	echo
	echo "test: scale pass (icount, $SCALE_SHAPE): $SCALE_TESTS"
	# shellcheck disable=SC2046 # one -t per test
	ICOUNT=1 SAAKM_FULL=0 run_pass scale --no-build --no-host --shape "$SCALE_SHAPE" \
		$(budget $BUDGET_SCALE) $(printf -- '-t %s ' $SCALE_TESTS)
	read -r pc fc sc < <(counts scale)
	p1=$((p1 + pc)) f1=$((f1 + fc)) s1=$((s1 + sc))
fi
p2=0 f2=0 s2=0
if [ "${DEBUG:-1}" != 0 ]; then
	echo
	echo "test: debug kernel pass (lockdep, KASAN, UBSAN)"
	rc=${debug_rc:-}
	if [ -z "$rc" ]; then
		rc=0
		bash "$SAAKM_ROOT/tests/debug-build.sh" wait || rc=$?
	fi
	if [ "$rc" = 0 ] && KERNEL_VARIANT=debug make -s -C "$SAAKM_ROOT" modules KEEP_GOING=1 SKIP_KERNEL=1; then
		# shellcheck disable=SC2046 # budget's words are arguments
		KERNEL_VARIANT=debug SAAKM_DEBUG_PASS=1 SAAKM_TIMEOUT_SCALE=4 \
			run_pass debug --no-build $(budget $BUDGET_DEBUG) "$@"
		read -r p2 f2 s2 < <(counts debug)
	else
		echo "FAIL  debug/build  (the debug kernel or its modules did not build; logs: build/logs/debug-build.out, build/logs/module-*.log)"
		f2=1
	fi
	# Leave the modules built for the normal kernel, as the first pass found them.
	make -s -C "$SAAKM_ROOT" modules KEEP_GOING=1 SKIP_KERNEL=1 >/dev/null 2>&1
fi

echo
echo "test: all passes in $(fmt_secs $((SECONDS - t0)))"
total="$((p1 + p2)) passed, $((f1 + f2)) failed"
[ $((s1 + s2)) -gt 0 ] && total="$total, $((s1 + s2)) skipped"
echo "total: $total"
[ $((f1 + f2)) -eq 0 ] && [ $((p1 + p2)) -gt 0 ]
