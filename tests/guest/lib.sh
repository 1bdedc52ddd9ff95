# TAP helpers for in-guest test scripts. Source it from a t_*.sh script:
#
#   #!/bin/sh
#   . "$(dirname "$0")/lib.sh"
#   [ -e /proc/version ] && ok "proc is mounted" || not_ok "proc is mounted" "no /proc/version"
#   done_testing
#
# Each check prints one kselftest-style TAP line ("ok N desc",
# "not ok N desc # reason", "ok N desc # SKIP reason"). done_testing exits
# 0 if nothing failed, 4 (kselftest's "skip") if everything was skipped,
# 1 otherwise. A script that exits without done_testing is judged by its
# exit status alone. Tags read by the suite runner go in comments:
#   # saakm-test: opt-in       run only when selected by name (-t)
#   # saakm-test: timeout=N    seconds before the test is killed (default 120,
#                              times SAAKM_TIMEOUT_SCALE)
#   # saakm-test: normal-only  skipped on the debug kernel (benchmarks)
# shellcheck shell=sh

TAP_N=0
TAP_FAILED=0
TAP_PASSED=0
TAP_SKIPPED=0

ok() {
	TAP_N=$((TAP_N + 1)); TAP_PASSED=$((TAP_PASSED + 1))
	echo "ok $TAP_N $1"
}

not_ok() {
	TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N $1${2:+ # $2}"
}

skip() {
	TAP_N=$((TAP_N + 1)); TAP_SKIPPED=$((TAP_SKIPPED + 1))
	echo "ok $TAP_N $1 # SKIP${2:+ $2}"
}

# check DESC COMMAND...: ok if COMMAND succeeds, not ok (with its output) if not.
check() {
	_desc=$1; shift
	if _out=$("$@" 2>&1); then
		ok "$_desc"
	else
		echo "$_out" | sed 's/^/# /'
		not_ok "$_desc" "'$*' failed"
	fi
}

# diag TEXT: a comment line, shown with the test's output on failure.
diag() { echo "# $*"; }

# wait_for SECONDS COMMAND...: poll until COMMAND succeeds. Under -icount the
# guest clock is virtual, so wait on states rather than sleeping blindly.
wait_for() {
	_limit=$1; shift
	_i=0
	while ! "$@" >/dev/null 2>&1; do
		_i=$((_i + 1))
		[ "$_i" -gt $((_limit * 10)) ] && return 1
		sleep 0.1
	done
}

# Path of the repository, as seen in the guest (the host fs is shared).
SAAKM_ROOT=${SAAKM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}

# SaaKM log checks look only at kernel messages stamped after this test
# started (an earlier test may eject policies on purpose). printk stamps
# and /proc/uptime both count from boot.
SAAKM_LOG_SINCE=$(cut -d' ' -f1 /proc/uptime)

# saakm_log_clean: ok if no SaaKM policy error or refused transition was
# logged since this test started.
saakm_log_clean() {
	_errs=$(dmesg | awk -v t="$SAAKM_LOG_SINCE" '{ s = $0; sub(/^\[ */, "", s); if (s + 0 >= t) print }' |
		grep -E 'saakm: policy .*(invalid transition|\) error: )')
	if [ -n "$_errs" ]; then
		not_ok "no SaaKM error in the kernel log" "$(echo "$_errs" | head -1)"
	else
		ok "no SaaKM error in the kernel log"
	fi
}

done_testing() {
	echo "1..$TAP_N"
	if [ "$TAP_FAILED" -gt 0 ]; then exit 1; fi
	if [ "$TAP_PASSED" -eq 0 ] && [ "$TAP_SKIPPED" -gt 0 ]; then exit 4; fi
	exit 0
}
