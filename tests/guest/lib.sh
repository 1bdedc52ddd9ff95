# Helpers for in-guest test scripts: TAP (from tap.sh), waits, the kernel
# log since the test started, /proc/saakm through the saakm CLI, and a
# cleanup that always runs. Source it from a t_*.sh script:
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
#   # saakm-test: full-only    run by make test-full only (soaks)
# A cleanup runs however the script ends (see "cleanup" below): it unloads
# the modules loaded while the test ran, kills its remaining children, and
# restores what sysfs_set changed.
# shellcheck shell=sh

# The TAP functions (ok, not_ok, skip, check, check_not, diag, done_testing).
. "${SAAKM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/guest/tap.sh"

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

# debug_pass: true in the debug pass of make test (SAAKM_DEBUG_PASS=1).
debug_pass() { [ "${SAAKM_DEBUG_PASS:-0}" = 1 ]; }

# tier_size VAR CI FULL: the size of a test's long part: $VAR when it is a
# positive number, else CI in make test (the smallest size that still
# walks every path once) and FULL in make test-full (SAAKM_FULL=1).
tier_size() {
	eval "_v=\${$1:-}"
	case $_v in '' | *[!0-9]* | 0) ;; *) echo "$_v"; return ;; esac
	if [ "${SAAKM_FULL:-0}" = 1 ]; then echo "$3"; else echo "$2"; fi
}

# SaaKM log checks look only at kernel messages stamped after this test
# started (an earlier test may eject policies on purpose). printk stamps
# and /proc/uptime both count from boot.
SAAKM_LOG_SINCE=$(cut -d' ' -f1 /proc/uptime)

# log_since_start: the kernel log lines stamped since this test started.
log_since_start() {
	dmesg | awk -v t="$SAAKM_LOG_SINCE" '{ s = $0; sub(/^\[ */, "", s); if (s + 0 >= t) print }'
}

# saakm_log_clean: ok if no SaaKM policy error or refused transition was
# logged since this test started.
saakm_log_clean() {
	_errs=$(log_since_start | grep -E 'saakm: policy .*(invalid transition|\) error: )')
	if [ -n "$_errs" ]; then
		not_ok "no SaaKM error in the kernel log" "$(echo "$_errs" | head -1)"
	else
		ok "no SaaKM error in the kernel log"
	fi
}

# /proc/saakm is read only through libsaakm: here through the saakm CLI
# (build/tools/saakm, `make tools`), never with grep or awk.
SAAKM_CLI=${SAAKM_CLI:-$SAAKM_ROOT/build/tools/saakm}

# policy_state NAME: the state of policy NAME in /proc/saakm/policies
# ("enabled", "disabling", "ejected"); nothing if it is not listed.
policy_state() { "$SAAKM_CLI" get policies "$1" state 2>/dev/null; }

# policy_error NAME: "KIND: REASON" of policy NAME in /proc/saakm/errors;
# nothing if it has none.
policy_error() {
	_kind=$("$SAAKM_CLI" get errors "$1" kind 2>/dev/null) || return 1
	echo "$_kind: $("$SAAKM_CLI" get errors "$1" reason)"
}

# event_count NAME KEY: counter KEY ("new_place", ..., "bad_transitions")
# of policy NAME in /proc/saakm/events; nothing if absent.
event_count() { "$SAAKM_CLI" get events "$1" "$2" 2>/dev/null; }

# policy_tasks NAME: tasks attached to policy NAME; nothing if it is not listed.
policy_tasks() { "$SAAKM_CLI" get policies "$1" tasks 2>/dev/null; }

# events_total NAME: the sum of policy NAME's event counters (not
# bad_transitions); 0 if it is not listed.
events_total() {
	"$SAAKM_CLI" get events "$1" 2>/dev/null |
		awk -F= '$1 != "name" && $1 != "bad_transitions" { s += $2 } END { print s + 0 }'
}

# replay_cache_init: fill $XDG_CACHE_HOME with the replay programs that
# make test-progs built on the host (tests/guest/replay-prebuild.sh), so
# that a replay starts at once instead of compiling under TCG; a program
# that is not there (or not current) is compiled as usual.
replay_cache_init() {
	[ -d "$SAAKM_ROOT/build/replay-cache/saakm" ] || return 0
	mkdir -p "$XDG_CACHE_HOME" && cp -r "$SAAKM_ROOT/build/replay-cache/saakm" "$XDG_CACHE_HOME/"
}

# replay_matches REC SRC NRECORDS DESC KEEP: "saakm replay REC SRC" must
# match all NRECORDS records: one TAP line DESC, the replay's output as
# diagnostics; on failure the recording is kept as $SAAKM_RESULTS/KEEP.rec
# for a replay on the host.
replay_matches() {
	"$SAAKM_CLI" replay "$1" "$2" >"$1.replay" 2>&1
	_rm_rc=$?
	sed 's/^/# /' "$1.replay" | head -40
	if [ "$_rm_rc" = 0 ] && grep -q "all $3 records match" "$1.replay"; then
		ok "$4"
	else
		[ -n "${SAAKM_RESULTS:-}" ] && cp "$1" "$SAAKM_RESULTS/$5.rec" &&
			diag "recording kept as $SAAKM_RESULTS/$5.rec"
		not_ok "$4" "status $_rm_rc"
	fi
}

# --- cleanup ----------------------------------------------------------------------
# However the script ends (done_testing, exit, or the SIGTERM of the suite's
# timeout), saakm_cleanup puts back the files changed with sysfs_set, kills
# the script's remaining child processes (and theirs), and unloads the
# modules loaded while it ran; a module that was loaded before it started is
# left alone. Each wait is bounded. So a test that fails midway leaves no
# policy or task behind for the tests after it.
SAAKM_MODULES_BEFORE=" $(cut -d' ' -f1 /proc/modules 2>/dev/null | tr '\n' ' ')"
SAAKM_RESTORE=

# bench_setup NAME: the benchmark tests' common start. The programs
# bench/guest.sh runs must be built (make bench-progs), else the test fails
# and ends here. Sets out to an empty results directory for the run,
# $SAAKM_RESULTS/NAME.
bench_setup() {
	for _f in schedrun wakelat ext_fifo; do
		[ -x "$SAAKM_ROOT/build/bench/$_f" ] && continue
		not_ok "benchmark program $_f built" "build/bench/$_f missing: make bench-progs"
		done_testing
	done
	out=${SAAKM_RESULTS:-/tmp}/$1
	rm -rf "$out"
}

# sysfs_set PATH VALUE: write VALUE to PATH; at cleanup PATH gets back the
# value it had before the test's first sysfs_set of it.
sysfs_set() {
	if ! printf '%s' "$SAAKM_RESTORE" | grep -q "^$1 "; then
		_old=$(cat "$1") || return 1
		SAAKM_RESTORE="$1 $_old
$SAAKM_RESTORE"
	fi
	echo "$2" >"$1"
}

_saakm_kill_tree() { # PID: SIGKILL PID, then its descendants
	_kids=$(pgrep -P "$1")
	kill -KILL "$1" 2>/dev/null
	for _k in $_kids; do _saakm_kill_tree "$_k"; done
}

saakm_cleanup() {
	printf '%s' "$SAAKM_RESTORE" | while read -r _p _v; do
		[ -n "$_p" ] && { echo "$_v" >"$_p"; } 2>/dev/null
	done
	# (the list includes the subshell running pgrep, gone by then)
	for _k in $(pgrep -P $$); do _saakm_kill_tree "$_k"; done
	# newest first in /proc/modules: users before the modules they use
	for _m in $(cut -d' ' -f1 /proc/modules 2>/dev/null); do
		case $SAAKM_MODULES_BEFORE in *" $_m "*) continue ;; esac
		diag "cleanup: rmmod $_m (the test left it loaded)"
		# in the background: an unload stuck in the kernel cannot be killed
		rmmod "$_m" 2>&1 | sed 's/^/# cleanup: /' &
		_i=0
		while kill -0 $! 2>/dev/null; do
			_i=$((_i + 1))
			[ $_i -gt 300 ] && { diag "cleanup: rmmod $_m still running after 30 s"; break; }
			sleep 0.1
		done
	done
}

_saakm_exit() {
	_rc=$?
	trap - EXIT
	saakm_cleanup
	exit "$_rc"
}
trap _saakm_exit EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
