#!/bin/bash
# Harness test: scripts/logscan.py on sample console logs: the clean log
# passes, each kind of kernel problem is found and its lines are printed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
. "$root/tests/guest/tap.sh"
scan=$root/scripts/logscan.py
s=$here/logscan-samples

expect() { # desc expected_status expected_output_regex log
	out=$(python3 "$scan" "$4" 2>&1)
	rc=$?
	if [ "$rc" != "$2" ]; then
		not_ok "$1" "exit status $rc, expected $2"; echo "$out" | sed 's/^/# /'
	elif [ -n "$3" ] && ! grep -qE "$3" <<<"$out"; then
		not_ok "$1" "output lacks /$3/"; echo "$out" | sed 's/^/# /'
	else
		ok "$1"
	fi
}

expect "clean log passes" 0 "" "$s/clean.log"
expect "WARN found with its message" 1 "deliberate warning for the test runner" "$s/warn.log"
expect "WARN hit is marked" 1 ">> .*WARNING: CPU: 1 PID: 93" "$s/warn.log"
expect "panic found" 1 "Kernel panic - not syncing" "$s/panic.log"
expect "NULL dereference BUG found" 1 "BUG: kernel NULL pointer" "$s/panic.log"
expect "lockdep splat found" 1 "line\(s\): lockdep" "$s/lockdep.log"
expect "lockdep splat shown" 1 ">> .*possible circular locking dependency" "$s/lockdep.log"
expect "hung task found" 1 "blocked for more than 60 seconds" "$s/hung.log"
expect "sleep in atomic context found" 1 ">> .*BUG: sleeping function called from invalid context" "$s/sleep.log"
expect "missing log is an error" 2 "" "$s/does-not-exist.log"
done_testing
