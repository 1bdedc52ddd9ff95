# The one shell TAP implementation of the project (kselftest style), for
# guest tests (through lib.sh), host tests, tools/tests and the suite
# runner. C tests have its twin, tap.h. Source it:
#
#   . "$SAAKM_ROOT/tests/guest/tap.sh"
#   [ -e /proc/version ] && ok "proc is mounted" || not_ok "proc is mounted" "no /proc/version"
#   check "uname works" uname -r
#   done_testing
#
# Each check prints one TAP line: "ok N desc", "ok N desc # comment",
# "not ok N desc # reason", "ok N desc # SKIP reason". With TAP_FILE set,
# each line is appended to that file too. done_testing prints the plan and
# exits 0 if nothing failed, 4 (kselftest's "skip") if everything was
# skipped, 1 otherwise; tap_plan only prints the plan.
# shellcheck shell=sh

TAP_N=0
TAP_FAILED=0
TAP_PASSED=0
TAP_SKIPPED=0
TAP_FILE=${TAP_FILE:-}
TAP_GROUP=

# tap_subtest GROUP: the checks that follow read "GROUP: desc" (no
# argument: no prefix again). For a script that checks several behaviours,
# one group per behaviour.
tap_subtest() {
	TAP_GROUP=${1:-}
	if [ -n "$TAP_GROUP" ]; then echo "# subtest: $TAP_GROUP"; fi
}

_tap_line() { # STATUS DESC [DIRECTIVE]: the line, to stdout and $TAP_FILE
	_l="$1 $TAP_N ${TAP_GROUP:+$TAP_GROUP: }$2${3:+ # $3}"
	echo "$_l"
	if [ -n "$TAP_FILE" ]; then echo "$_l" >>"$TAP_FILE"; fi
}

# ok DESC [COMMENT]
ok() {
	TAP_N=$((TAP_N + 1)); TAP_PASSED=$((TAP_PASSED + 1))
	_tap_line ok "$1" "${2:-}"
}

# not_ok DESC [REASON]
not_ok() {
	TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1))
	_tap_line "not ok" "$1" "${2:-}"
}

# skip DESC [REASON]
skip() {
	TAP_N=$((TAP_N + 1)); TAP_SKIPPED=$((TAP_SKIPPED + 1))
	_tap_line ok "$1" "SKIP${2:+ $2}"
}

# diag TEXT: a comment line, shown with the test's output on failure.
diag() { echo "# $*"; }

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

# check_not DESC COMMAND...: ok if COMMAND fails.
check_not() {
	_desc=$1; shift
	if _out=$("$@" 2>&1); then
		echo "$_out" | sed 's/^/# /'
		not_ok "$_desc" "'$*' succeeded"
	else
		ok "$_desc"
	fi
}

tap_plan() {
	echo "1..$TAP_N"
	if [ -n "$TAP_FILE" ]; then echo "1..$TAP_N" >>"$TAP_FILE"; fi
}

done_testing() {
	tap_plan
	if [ "$TAP_FAILED" -gt 0 ]; then exit 1; fi
	if [ "$TAP_PASSED" -eq 0 ] && [ "$TAP_SKIPPED" -gt 0 ]; then exit 4; fi
	exit 0
}
