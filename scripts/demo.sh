#!/bin/bash
# make demo: the SaaKM showcase.
#
# Today it proves the pipeline: boot the built kernel, load a module built
# out of tree, run hackbench in the guest and print its time. The structure
# is meant to be kept when the body becomes the SaaKM FIFO experiment:
#
#   build          make kernel + modules (skipped with --no-build)
#   guest_body     runs INSIDE the guest (this script with --guest DIR);
#                  writes its results as files in DIR (shared with the host)
#   boot           one guest, console log kept, kernel problems detected
#   report         reads DIR on the host and prints the results
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# ---- inside the guest ------------------------------------------------------------
guest_body() {
	local out=$1
	cd "$SAAKM_ROOT" || exit 1
	uname -r >"$out/kernel"
	nproc >"$out/cpus"

	insmod tests/modules/hello/saakm_hello.ko greeting=demo || { echo "insmod failed" >"$out/error"; exit 1; }
	grep '^saakm_hello ' /proc/modules >"$out/module"

	# hackbench: 2 groups of 20 senders/receivers over unix sockets, 100 loops
	hackbench -g 2 -l 100 >"$out/hackbench.txt" 2>&1 || { echo "hackbench failed" >"$out/error"; exit 1; }

	rmmod saakm_hello
	echo ok >"$out/status"
}

if [ "${1:-}" = --guest ]; then
	guest_body "$2"
	exit $?
fi

# ---- on the host -----------------------------------------------------------------
build=1
[ "${1:-}" = --no-build ] && build=

if [ -n "$build" ]; then
	make -s -C "$SAAKM_ROOT" kernel modules || die "build failed"
fi

run=$RESULTS_DIR/demo-$(date +%Y%m%d-%H%M%S)
mkdir -p "$run"
ln -sfn "$(basename "$run")" "$RESULTS_DIR/demo-latest"
console=$LOG_DIR/$(basename "$run").console.log

echo "demo: booting a guest (${CPUS:-2} vCPUs, TCG${ICOUNT:+, icount}) to load saakm_hello and run hackbench -g 2 -l 100"
t0=$SECONDS
bash "$SAAKM_ROOT/scripts/vm.sh" --cpus "${CPUS:-2}" --timeout "${TIMEOUT:-600}" --rwdir "$run" \
	--log "$console" --exec "bash scripts/demo.sh --guest '$run'"
vm_rc=$?

# ---- report ------------------------------------------------------------------------
echo
echo "demo: results"
if [ -f "$run/status" ]; then
	echo "  kernel:    $(cat "$run/kernel") on $(cat "$run/cpus") vCPUs (TCG$([ -n "${ICOUNT:-}" ] && echo ", icount"))"
	echo "  module:    $(awk '{print $1 " loaded, " $2 " bytes"}' "$run/module")"
	echo "  hackbench: $(grep -m1 '^Time:' "$run/hackbench.txt" || tail -1 "$run/hackbench.txt") s  (-g 2 -l 100; guest time, TCG is much slower than hardware)"
else
	echo "  the guest did not finish: $(cat "$run/error" 2>/dev/null || echo 'no result written')"
fi
echo "  wall time: $(fmt_secs $((SECONDS - t0))) for boot + run + power-off"
echo "  results:   ${run#"$SAAKM_ROOT"/}/"
echo "  console:   ${console#"$SAAKM_ROOT"/}"
[ -f "$run/status" ] && [ "$vm_rc" -eq 0 ]
