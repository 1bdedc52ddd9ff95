#!/bin/sh
# Run the in-guest test suite. Called by tests/run.sh inside the guest:
#
#   run-suite.sh RESULTS_DIR
#
# Runs every tests/guest/t_*.sh, tests/harness/guest/t_*.sh (the harness's
# own tests) and every compiled build/tests/t_* binary whose name is listed
# in RESULTS_DIR/tests (one name a line, written by the host runner);
# without that file, the names selected by RESULTS_DIR/selection (one
# substring per line; no file or an empty one selects everything that is
# not opt-in; select.sh). Each test's output goes to RESULTS_DIR/<name>.log;
# the suite's verdicts go to RESULTS_DIR/results.tap as TAP (tap.sh), one
# line per test, and to stdout.
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

tests=""
for f in "$here"/t_*.sh "$root"/tests/harness/guest/t_*.sh "$root"/build/tests/t_*; do
	[ -f "$f" ] || continue
	case $f in *.c | *.o | *.d) continue ;; esac
	tests="$tests $f"
done

echo "TAP version 13" >>"$tap"
echo "# guest: $(uname -r), $(nproc) CPUs, $(date -u +%FT%TZ)" | tee -a "$tap"
for f in $tests; do
	name=$(saakm_test_name "$f")
	opt_in=0
	saakm_tag "$f" opt-in >/dev/null && opt_in=1
	selected "$name" "$opt_in" || continue
	limit=$(saakm_tag "$f" timeout) || limit=120
	limit=$((limit * ${SAAKM_TIMEOUT_SCALE:-1}))
	if [ "${SAAKM_DEBUG_PASS:-0}" = 1 ] && saakm_tag "$f" normal-only >/dev/null; then
		skip "$name" "normal kernel only"
		continue
	fi
	log=$res/$name.log
	echo "# running $name" >>"$tap"
	# markers in the kernel log let the host tie a WARN/BUG to this test
	echo "saakm-suite: start $name" >/dev/kmsg 2>/dev/null
	start=$(date +%s.%N)
	case $f in
	*.sh) timeout -k 5 "$limit" sh "$f" >"$log" 2>&1 ;;
	*) timeout -k 5 "$limit" "$f" >"$log" 2>&1 ;;
	esac
	rc=$?
	echo "saakm-suite: end $name" >/dev/kmsg 2>/dev/null
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	failed_line=$(grep -m1 '^not ok' "$log")
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		not_ok "$name" "timed out after ${limit}s"
	elif [ "$rc" = 4 ]; then
		reason=$(sed -n 's/.*# SKIP *//p' "$log" | head -1)
		skip "$name" "${reason:-skipped}"
	elif [ "$rc" != 0 ] || [ -n "$failed_line" ]; then
		reason=${failed_line#*# }
		[ "$reason" = "$failed_line" ] && reason=${failed_line#not ok }
		not_ok "$name" "${reason:-exit status $rc}"
	else
		ok "$name" "time=${secs}s"
	fi
done
tap_plan >/dev/null
sync
echo "$TAP_N" >"$res/done"
sync
