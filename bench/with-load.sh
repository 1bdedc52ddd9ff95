#!/bin/bash
# Run a command next to a kernel build: the host load of the runner's
# reliability check (docs/benchmarks.md, "The runner's own reliability").
#
#   bench/with-load.sh [-j N] TREE -- COMMAND [ARGS...]
#
# TREE is a kernel source tree used for nothing else (e.g. Debian's
# linux-source extracted into /tmp/kb; never build/linux*). It gets a
# defconfig if it has no .config, then `make -jN` (default 2) runs in it,
# over and over (make clean between), at normal priority, until COMMAND
# ends; the build is then stopped (its whole process group). Its output
# goes to TREE/with-load.log. Exit status: COMMAND's.
set -uo pipefail
jobs=2
[ "${1:-}" = -j ] && { jobs=$2; shift 2; }
tree=${1:?usage: with-load.sh [-j N] TREE -- COMMAND...}
shift
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { echo "with-load: no command" >&2; exit 2; }
[ -f "$tree/Makefile" ] && [ -d "$tree/kernel" ] || { echo "with-load: $tree is not a kernel tree" >&2; exit 2; }
case $(cd "$tree" && pwd) in */build/linux*) echo "with-load: not in the project's kernel trees" >&2; exit 2 ;; esac

[ -f "$tree/.config" ] || make -C "$tree" defconfig >"$tree/with-load.log" 2>&1 ||
	{ echo "with-load: defconfig failed, see $tree/with-load.log" >&2; exit 2; }
# the build loop in a session of its own, so that it can be stopped whole
setsid bash -c "while :; do make -C '$tree' -j$jobs >>'$tree/with-load.log' 2>&1; make -C '$tree' clean >>'$tree/with-load.log' 2>&1; done" &
load=$!
echo "with-load: make -j$jobs in $tree running (process group $load)" >&2
"$@"
rc=$?
kill -TERM -- "-$load" 2>/dev/null
wait "$load" 2>/dev/null
echo "with-load: build stopped" >&2
exit "$rc"
