#!/bin/bash
# The debug kernel, built in the background for make test's debug pass.
#
#   tests/debug-build.sh start   start 'KERNEL_VARIANT=debug make kernel' at
#                                the idle priority (SCHED_IDLE), unless it
#                                runs already; its output goes to
#                                build/logs/debug-build.out
#   tests/debug-build.sh wait    wait for it; print its result lines; then
#                                bring the tree up to date with the sources
#                                (they may have changed while it built);
#                                exit with the status (0 when none was
#                                started and the debug kernel is built)
#
# make test starts it before the normal kernel build, so that it takes
# only the time the normal build and the normal pass leave idle (links,
# single-threaded steps, a guest waiting): on two cores, a build at the
# normal priority beside them would only slow them down as much.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

out=$LOG_DIR/debug-build.out
pidf=$BUILD_DIR/debug-build.pid
rcf=$BUILD_DIR/debug-build.rc

running() {
	[ -f "$pidf" ] && kill -0 "$(cat "$pidf")" 2>/dev/null
}

case ${1:-} in
start)
	running && exit 0
	mkdir -p "$LOG_DIR"
	rm -f "$rcf"
	echo "test: building the debug kernel in the background at idle priority (log: ${out#"$SAAKM_ROOT"/})"
	(
		KERNEL_VARIANT=debug chrt --idle 0 make -s -C "$SAAKM_ROOT" kernel >"$out" 2>&1
		echo $? >"$rcf"
	) </dev/null &
	echo $! >"$pidf"
	;;
wait)
	if running; then
		echo "test: waiting for the debug kernel build (log: ${out#"$SAAKM_ROOT"/})"
		while running; do sleep 2; done
	fi
	rm -f "$pidf"
	if [ -f "$rcf" ]; then
		grep -E '^kernel: (built|extracted)' "$out" | sed 's/^kernel:/test: debug kernel:/'
		rc=$(cat "$rcf")
		rm -f "$rcf"
		if [ "$rc" != 0 ]; then
			tail -n 20 "$out" | sed 's/^/  | /'
			exit "$rc"
		fi
		# The class may have changed since the build started (a second
		# make test while one ran): build again, incrementally; when
		# nothing changed this only checks, in a few seconds.
		KERNEL_VARIANT=debug make -s -C "$SAAKM_ROOT" kernel | grep -E '^kernel: (applied|built)' |
			sed 's/^kernel:/test: debug kernel, brought up to date:/'
		exit "${PIPESTATUS[0]}"
	fi
	# none was started (make test DEBUG=0 before, or run by hand): build now
	KERNEL_VARIANT=debug make -s -C "$SAAKM_ROOT" kernel
	;;
*)
	echo "usage: $0 start|wait" >&2
	exit 2
	;;
esac
