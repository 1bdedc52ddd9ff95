#!/bin/sh
# Run the in-guest test suite. Called by tests/run.sh inside the guest:
#
#   run-suite.sh RESULTS_DIR
#
# Runs every tests/guest/t_*.sh and every compiled build/tests/t_* binary
# whose name is listed in RESULTS_DIR/tests (one name a line, written by the
# host runner); without that file, the names selected by RESULTS_DIR/selection
# (one substring per line; no file or an empty one selects everything that is
# not opt-in). Each test's
# output goes to RESULTS_DIR/<name>.log; the suite's verdicts go to
# RESULTS_DIR/results.tap as TAP, one line per test, and to stdout.
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

selected() { # name opt_in
	# the host runner lists exactly which tests to run
	if [ -f "$res/tests" ]; then
		grep -qx "$1" "$res/tests"
		return
	fi
	if [ ! -s "$res/selection" ]; then
		[ "$2" = 0 ]
		return
	fi
	while IFS= read -r pat; do
		[ -n "$pat" ] || continue
		case $1 in *"$pat"*) return 0 ;; esac
	done <"$res/selection"
	return 1
}

tag() { # file tag -> value of "# saakm-test: tag[=value]" ("1" when no value)
	v=$(grep -a -m1 -o "saakm-test: $2[=0-9a-zA-Z_]*" "$1" 2>/dev/null) || return 1
	v=${v#*"$2"}
	[ -n "$v" ] && echo "${v#=}" || echo 1
}

tests=""
for f in "$here"/t_*.sh "$root"/build/tests/t_*; do
	[ -f "$f" ] || continue
	case $f in *.c | *.o | *.d) continue ;; esac
	tests="$tests $f"
done

n=0
echo "TAP version 13" >>"$tap"
echo "# guest: $(uname -r), $(nproc) CPUs, $(date -u +%FT%TZ)" | tee -a "$tap"
for f in $tests; do
	name=$(basename "$f")
	name=${name#t_}
	name=${name%.sh}
	opt_in=0
	tag "$f" opt-in >/dev/null && opt_in=1
	selected "$name" "$opt_in" || continue
	limit=$(tag "$f" timeout) || limit=120
	limit=$((limit * ${SAAKM_TIMEOUT_SCALE:-1}))
	n=$((n + 1))
	if [ "${SAAKM_DEBUG_PASS:-0}" = 1 ] && tag "$f" normal-only >/dev/null; then
		echo "ok $n $name # SKIP normal kernel only" | tee -a "$tap"
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
		line="not ok $n $name # timed out after ${limit}s"
	elif [ "$rc" = 4 ]; then
		reason=$(sed -n 's/.*# SKIP *//p' "$log" | head -1)
		line="ok $n $name # SKIP ${reason:-skipped}"
	elif [ "$rc" != 0 ] || [ -n "$failed_line" ]; then
		reason=${failed_line#*# }
		[ "$reason" = "$failed_line" ] && reason=${failed_line#not ok }
		line="not ok $n $name # ${reason:-exit status $rc}"
	else
		line="ok $n $name # time=${secs}s"
	fi
	echo "$line" | tee -a "$tap"
done
echo "1..$n" >>"$tap"
sync
echo "$n" >"$res/done"
sync
