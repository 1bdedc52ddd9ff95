#!/bin/bash
# SaaKM test runner (host side).
#
#   tests/run.sh [-t SUBSTRING]... [--no-build] [--no-host] [--timeout SECS] [--cpus N]
#                [--topology S,C,T | --shape NAME] [--budget SECS] [--repeat N]
#
# 1. builds the kernel, modules and C tests (make), unless --no-build
# 2. runs the host tests tests/host/t_*.sh and tests/harness/host/t_*.sh
# 3. boots ONE guest that runs tests/guest/run-suite.sh, which writes TAP
#    results into build/results/<run>/ (shared read-write with the guest)
# 4. prints one line per test, the ten slowest tests, and
#    "N passed, N failed, N skipped"
#
# -t selects tests whose name contains SUBSTRING (repeatable); opt-in tests
# (tagged "# saakm-test: opt-in") run only when selected this way
# (tests/guest/select.sh, shared with the guest's run-suite.sh). The
# harness's own tests live in tests/harness/{host,guest}/ and run with the
# SaaKM tests, under their own names.
# A guest that dies or times out fails every test that has no result; a
# kernel problem in the console log (WARNING, BUG, lockdep, ...) is a failed
# "guest_console" test. --topology gives the guest S sockets of C cores of
# T threads (vCPUs: S*C*T unless --cpus says otherwise); --shape boots a
# named shape of scripts/shapes.sh instead (its vCPUs, dies, threads and
# NUMA nodes), names the results "SHAPE/test" and tells the guest tests
# SAAKM_SHAPE. --budget is the
# most seconds the whole pass (boot included) may take: past it, a failed
# "budget" test says by how much, so that the suite's growth shows when it
# happens rather than as a CI timeout. --repeat N runs each guest test N
# times in the one guest (NAME, NAME@2, ...), with N times the guest's time
# limit: a new test runs at least 5 times before it lands. Exit status: 0
# only if nothing failed.
#
# With KERNEL_VARIANT=debug the guest boots the debug kernel
# (build/linux-debug) and test names are prefixed "debug/". Numeric SAAKM_*
# variables (scale knobs, SAAKM_FULL, SAAKM_DEBUG_PASS) pass into the guest.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$(dirname "$0")/guest/select.sh"
. "$(dirname "$0")/../scripts/shapes.sh"

sel=()
build=1
host=1
timeout_s=${TIMEOUT:-900}
[ "${KERNEL_VARIANT:-}" = debug ] && timeout_s=${TIMEOUT:-2400}
timeout_given=${TIMEOUT:+1}
label=${KERNEL_VARIANT:+$KERNEL_VARIANT/}
# Scale knobs read by guest tests (SAAKM_FULL, SAAKM_DEBUG_PASS, the sizes
# that tier_size() reads; see tests/guest/*): every numeric SAAKM_*
# variable is forwarded as is.
guest_env=$(env | grep -E '^SAAKM_[A-Z_]+=[0-9]+$' | tr '\n' ' ')
cpus=
topology=
shape=
budget=
repeat=1
while [ $# -gt 0 ]; do
	case $1 in
	-t) sel+=("$2"); shift ;;
	--no-build) build= ;;
	--no-host) host= ;;
	--timeout) timeout_s=$2; timeout_given=1; shift ;;
	--cpus) cpus=$2; shift ;;
	--topology) topology=$2; shift ;;
	--shape) shape=$2; shift ;;
	--budget) budget=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	-h | --help) sed -n '2,32s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "usage: $0 [-t SUBSTRING]... [--no-build] [--timeout SECS] [--cpus N] [--topology S,C,T | --shape NAME] [--budget SECS] [--repeat N]" >&2; exit 2 ;;
	esac
	shift
done
topo_args=()
if [ -n "$topology" ]; then
	IFS=, read -r s_ c_ t_ <<<"$topology"
	[ -n "$cpus" ] || cpus=$((s_ * c_ * t_))
	topo_args=(--topology "$topology")
fi
if [ -n "$shape" ]; then
	spec=$(saakm_shape "$shape") || die "--shape $shape: no such shape (shapes: $SAAKM_SHAPES)"
	[ -z "$cpus" ] || [ "$cpus" = "${spec%% *}" ] || die "--shape $shape has ${spec%% *} vCPUs, not the $cpus of --cpus"
	cpus=${spec%% *}
	topo_args=(--shape "$shape")
	label=$label$shape/
	guest_env="${guest_env}SAAKM_SHAPE=$shape "
fi
[ -n "$cpus" ] || cpus=${CPUS:-2}

t_start=$SECONDS
if [ -n "$build" ]; then
	make -s -C "$SAAKM_ROOT" kernel tools || die "build failed"
	make -s -C "$SAAKM_ROOT" modules KEEP_GOING=1 SKIP_KERNEL=1
	make -s -k -C "$SAAKM_ROOT" test-progs || echo "test: some C tests did not compile; they will be reported as failed"
fi

run_id=$(date +%Y%m%d-%H%M%S)-$$
res=$RESULTS_DIR/$run_id
mkdir -p "$res"
printf '%s\n' "${sel[@]}" >"$res/selection"
[ ${#sel[@]} -gt 0 ] || : >"$res/selection"

passed=0 failed=0 skipped=0
failures=()

is_selected() { # name opt_in
	saakm_selected "$1" "$2" ${sel[@]+"${sel[@]}"}
}

# verdict STATUS NAME [DETAIL]: print one line and count it
verdict() {
	case $1 in
	ok) passed=$((passed + 1)); printf 'PASS  %s%s\n' "$label$2" "${3:+  ($3)}" ;;
	skip) skipped=$((skipped + 1)); printf 'SKIP  %s%s\n' "$label$2" "${3:+  ($3)}" ;;
	*) failed=$((failed + 1)); failures+=("$label$2"); printf 'FAIL  %s%s\n' "$label$2" "${3:+  ($3)}" ;;
	esac
}

show_log() { # file: the end of a failed test's output, indented
	[ -s "$1" ] && tail -n 25 "$1" | sed 's/^/      | /'
}

# --- host tests -------------------------------------------------------------------
for f in "$SAAKM_ROOT"/tests/host/t_*.sh "$SAAKM_ROOT"/tests/harness/host/t_*.sh; do
	[ -f "$f" ] && [ -n "$host" ] || continue
	name=$(saakm_test_name "$f")
	opt_in=$(saakm_opt_in "$f")
	# host tests tagged debug-only run in the debug pass, and only there
	debug_only=
	saakm_tag "$f" debug-only >/dev/null && debug_only=debug
	[ "$debug_only" = "${KERNEL_VARIANT:-}" ] || continue
	is_selected "$name" "$opt_in" || continue
	log=$res/host-$name.log
	t0=$SECONDS
	SAAKM_RESULTS=$res bash "$f" >"$log" 2>&1 </dev/null
	rc=$?
	echo "$name $((SECONDS - t0)) host" >>"$res/times"
	case $rc in
	0) verdict ok "$name" "host, $(fmt_secs $((SECONDS - t0)))" ;;
	4) verdict skip "$name" "$(sed -n 's/.*# SKIP *//p' "$log" | head -1)" ;;
	*) verdict fail "$name" "host, exit status $rc, log: ${log#"$SAAKM_ROOT"/}"; show_log "$log" ;;
	esac
done

# --- guest tests --------------------------------------------------------------------
# a C test whose binary is missing did not compile: it fails without a boot
for f in "$SAAKM_ROOT"/tests/guest/t_*.c "$SAAKM_ROOT"/tests/harness/guest/t_*.c; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .c)
	[ -x "$BUILD_DIR/tests/$name" ] && [ "$BUILD_DIR/tests/$name" -nt "$f" ] && continue
	name=${name#t_}
	opt_in=$(saakm_opt_in "$f")
	is_selected "$name" "$opt_in" && verdict fail "$name" "did not compile (make test-progs)"
done
guest_tests=()
plan=()
for f in "$SAAKM_ROOT"/tests/guest/t_*.sh "$SAAKM_ROOT"/tests/harness/guest/t_*.sh "$BUILD_DIR"/tests/t_*; do
	[ -f "$f" ] || continue
	case $f in *.c | *.o | *.d) continue ;; esac
	# a stale binary whose source is gone or newer is not run
	case $f in "$BUILD_DIR"/tests/*)
		src=$SAAKM_ROOT/tests/guest/$(basename "$f").c
		[ -f "$src" ] || src=$SAAKM_ROOT/tests/harness/guest/$(basename "$f").c
		[ -f "$src" ] && [ "$f" -nt "$src" ] || continue ;;
	esac
	line=$(saakm_plan_line "$f" is_selected)
	[ -n "$line" ] || continue
	guest_tests+=("${line%%	*}")
	plan+=("$line")
done

if [ ${#guest_tests[@]} -gt 0 ]; then
	printf '%s\n' "${guest_tests[@]}" >"$res/tests"
	printf '%s\n' "${plan[@]}" >"$res/plan"
	# --repeat N: the guest runs each test N times, as NAME, NAME@2, ...
	if [ "$repeat" -gt 1 ]; then
		for name in "${guest_tests[@]}"; do
			for ((r = 2; r <= repeat; r++)); do guest_tests+=("$name@$r"); done
		done
	fi
	# each round of --repeat gets the whole limit, unless a timeout was given
	[ "$repeat" -gt 1 ] && [ -z "$timeout_given" ] && timeout_s=$((timeout_s * repeat))
	# make test-full's long rounds outlast the CI tier's guest limit: there
	# the guest gets the sum of its tests' limits and 5 minutes to boot (each
	# test is still killed at its own limit), unless a timeout was given.
	if [ "${SAAKM_FULL:-0}" = 1 ] && [ -z "$timeout_given" ]; then
		sum=$(printf '%s\n' "${plan[@]}" | awk -F'\t' -v s="${SAAKM_TIMEOUT_SCALE:-1}" -v r="$repeat" \
			'{ t += $3 * s * r } END { print t + 300 }')
		[ "$sum" -gt "$timeout_s" ] && timeout_s=$sum
	fi
	console=$LOG_DIR/test-$run_id.console.log
	echo "test: booting a guest for ${#guest_tests[@]} test(s) (${KERNEL_VARIANT:-normal} kernel, $cpus vCPUs${topology:+ as $topology}${shape:+ as $shape}, TCG, timeout ${timeout_s}s)"
	t0=$SECONDS
	boot_start=$(date +%s.%N)
	bash "$SAAKM_ROOT/scripts/vm.sh" --cpus "$cpus" "${topo_args[@]}" --timeout "$timeout_s" --rwdir "$res" \
		--log "$console" --filter '^(ok|not ok) [0-9]+ ' \
		--exec "${guest_env}SAAKM_REPEAT=$repeat tests/guest/run-suite.sh '$res'" | sed -u 's/^/  guest: /'
	vm_rc=${PIPESTATUS[0]}
	boot=
	[ -f "$res/suite-started" ] &&
		boot=$(awk -v a="$boot_start" -v b="$(stat -c %.3Y "$res/suite-started")" 'BEGIN { printf ", %.1fs from start to the first test", b - a }')
	[ "$vm_rc" = 3 ] && echo "test: kernel problems found, console log kept: ${console#"$SAAKM_ROOT"/}"
	echo "test: guest finished in $(fmt_secs $((SECONDS - t0)))$boot (console: ${console#"$SAAKM_ROOT"/})"

	# kernel problems, attributed to the test that was running (or "-")
	python3 "$SAAKM_ROOT/scripts/logscan.py" --hits "$console" >"$res/console-hits.txt" 2>/dev/null
	hit_in() { # test -> labels of the kernel problems seen while it ran
		awk -F'\t' -v t="$1" '$1 == t && !seen[$2]++ { printf "%s%s", (n++ ? ", " : ""), $2 }' "$res/console-hits.txt"
	}
	for name in "${guest_tests[@]}"; do
		line=$(grep -E "^(not )?ok [0-9]+ $name( |\$)" "$res/results.tap" 2>/dev/null | head -1)
		detail=${line#*# }
		[ "$detail" = "$line" ] && detail=
		hits=$(hit_in "$name")
		if [ -n "$hits" ] && [ -n "$line" ]; then
			verdict fail "$name" "kernel $hits in the console log while it ran (lines above)"
			show_log "$res/$name.log"
			continue
		fi
		case $line in
		"") verdict fail "$name" "no result: guest died or timed out, console: ${console#"$SAAKM_ROOT"/}" ;;
		"not ok"*) verdict fail "$name" "$detail"; show_log "$res/$name.log" ;;
		*"# SKIP"*) verdict skip "$name" "${detail#SKIP }" ;;
		*) verdict ok "$name" "${detail#time=}" ;;
		esac
	done
	outside=$(hit_in -)
	if [ -n "$outside" ]; then
		verdict fail guest_console "kernel $outside in the console log outside any test (lines above)"
	elif [ ! -f "$res/done" ] && [ "$vm_rc" != 0 ]; then
		verdict fail guest_console "guest did not finish the suite (vm.sh status $vm_rc), console: ${console#"$SAAKM_ROOT"/}"
	fi
fi

# the ten slowest tests, so that the suite's cost stays in view
if [ -s "$res/times" ]; then
	echo "test: the slowest tests (seconds, of their limit):"
	sort -k2,2 -g -r "$res/times" | head -n 10 |
		awk -v l="$label" '{ printf "  %7.1f  %s%s%s\n", $2, l, $1, ($3 == "host" ? "  (host)" : "  (limit " $3 ")") }'
fi
pass_secs=$((SECONDS - t_start))
if [ -n "$budget" ]; then
	if [ "$pass_secs" -gt "$budget" ]; then
		verdict fail budget "the pass took $(fmt_secs "$pass_secs"), over its budget of $(fmt_secs "$budget"): shrink or move to make test-full the slowest tests above"
	else
		echo "test: the pass took $(fmt_secs "$pass_secs") of its budget of $(fmt_secs "$budget")"
	fi
fi

ln -sfn "$run_id" "$RESULTS_DIR/latest"
echo "test: results in ${res#"$SAAKM_ROOT"/}, $(fmt_secs $((SECONDS - t_start))) in all"
[ $failed -gt 0 ] && echo "test: failed: ${failures[*]}"
if [ $skipped -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ $failed -eq 0 ] && [ $((passed + skipped)) -gt 0 ]
