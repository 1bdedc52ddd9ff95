#!/bin/sh
# Run the in-guest test suite. Called by tests/run.sh inside the guest:
#
#   run-suite.sh RESULTS_DIR
#
# Runs the tests of RESULTS_DIR/plan, which the host runner writes: one
# line per test, "NAME<tab>FILE<tab>LIMIT<tab>NORMAL_ONLY" (the tags read
# on the host: a grep of each test over 9p is slow in a debug guest).
# Without a plan, it makes one from every tests/guest/t_*.sh,
# tests/harness/guest/t_*.sh (the harness's own tests) and compiled
# build/tests/t_* binary whose name is listed in RESULTS_DIR/tests, or
# else selected by RESULTS_DIR/selection (one substring per line; no file
# or an empty one selects everything that is not opt-in; select.sh).
# Each test's output goes to RESULTS_DIR/<name>.log;
# the suite's verdicts go to RESULTS_DIR/results.tap as TAP (tap.sh), one
# line per test, and to stdout.
# With SAAKM_REPEAT=N each test runs N times, as NAME, NAME@2, ..., NAME@N.
# RESULTS_DIR/times gets "name seconds limit" for every test that ran.
# RESULTS_DIR/done is written last: without it the host knows the guest died.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
res=${1:?usage: run-suite.sh RESULTS_DIR}
mkdir -p "$res"
tap=$res/results.tap
: >"$tap"
# Its mtime (host clock, over 9p) tells the host when the guest got here.
: >"$res/suite-started"
export SAAKM_ROOT="$root" SAAKM_RESULTS="$res"
# Suite and test markers go to /dev/kmsg: lift its rate limit.
echo on >/proc/sys/kernel/printk_devkmsg 2>/dev/null

. "$here/tap.sh"
. "$here/select.sh"
TAP_FILE=$tap

selected() { # name opt_in
	# the host runner lists exactly which tests to run
	if [ -f "$res/tests" ]; then
		grep -qx "$1" "$res/tests"
		return
	fi
	set -- "$1" "$2"
	if [ -f "$res/selection" ]; then
		while IFS= read -r pat; do [ -z "$pat" ] || set -- "$@" "$pat"; done <"$res/selection"
	fi
	saakm_selected "$@"
}

plan=$res/plan
if [ ! -f "$plan" ]; then
	plan=$res/plan.guest
	: >"$plan"
	for f in "$here"/t_*.sh "$root"/tests/harness/guest/t_*.sh "$root"/build/tests/t_*; do
		[ -f "$f" ] || continue
		case $f in *.c | *.o | *.d) continue ;; esac
		saakm_plan_line "$f" selected >>"$plan"
	done
fi

echo "TAP version 13" >>"$tap"
echo "# guest: $(uname -r), $(nproc) CPUs, $(date -u +%FT%TZ)" | tee -a "$tap"
# run_test FILE NAME LIMIT: run one test, log it, and write its TAP line
# (its variables start with _: sh has no locals, and the caller loops)
run_test() {
	_file=$1 _name=$2 _limit=$3
	log=$res/$_name.log
	echo "# running $_name" >>"$tap"
	# markers in the kernel log let the host tie a WARN/BUG to this test
	echo "saakm-suite: start $_name" >/dev/kmsg 2>/dev/null
	start=$(date +%s.%N)
	case $_file in
	*.sh) timeout -k 5 "$_limit" sh "$_file" >"$log" 2>&1 ;;
	*) timeout -k 5 "$_limit" "$_file" >"$log" 2>&1 ;;
	esac
	rc=$?
	echo "saakm-suite: end $_name" >/dev/kmsg 2>/dev/null
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	echo "$_name $secs $_limit" >>"$res/times"
	failed_line=$(grep -m1 '^not ok' "$log")
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		not_ok "$_name" "timed out after ${_limit}s"
	elif [ "$rc" = 4 ]; then
		reason=$(sed -n 's/.*# SKIP *//p' "$log" | head -1)
		skip "$_name" "${reason:-skipped}"
	elif [ "$rc" != 0 ] || [ -n "$failed_line" ]; then
		reason=${failed_line#*# }
		[ "$reason" = "$failed_line" ] && reason=${failed_line#not ok }
		not_ok "$_name" "${reason:-exit status $rc}"
	else
		ok "$_name" "time=${secs}s"
	fi
}

tab=$(printf '\t')
while IFS=$tab read -r name f limit normal_only <&3; do
	limit=$((limit * ${SAAKM_TIMEOUT_SCALE:-1}))
	only_normal=
	[ "${SAAKM_DEBUG_PASS:-0}" = 1 ] && [ "$normal_only" = 1 ] && only_normal=1
	# SAAKM_REPEAT=N runs it N times: NAME, then NAME@2 ... NAME@N
	rep=1
	while [ "$rep" -le "${SAAKM_REPEAT:-1}" ]; do
		rname=$name
		[ "$rep" = 1 ] || rname=$name@$rep
		if [ -n "$only_normal" ]; then
			skip "$rname" "normal kernel only"
		else
			run_test "$f" "$rname" "$limit" 3<&-
		fi
		rep=$((rep + 1))
	done
done 3<"$plan"
tap_plan >/dev/null
sync
echo "$TAP_N" >"$res/done"
sync
