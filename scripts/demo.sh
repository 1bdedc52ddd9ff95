#!/bin/bash
# make demo: the paper's experiment in miniature.
#
# Boot the SaaKM kernel, load the FIFO policy, run hackbench alternately
# under EEVDF (SCHED_NORMAL) and under SaaKM FIFO, and print both times, the
# policy listing and the policy's event counters.
#
#   build          make kernel + modules + tools (skipped with --no-build)
#   guest_body     runs INSIDE the guest (this script with --guest DIR);
#                  writes its results as files in DIR (shared with the host)
#   boot           one guest, console log kept, kernel problems detected
#   report         reads DIR on the host and prints the results
set -uo pipefail
. "$(dirname "$0")/lib.sh"

DEMO_REPS=${DEMO_REPS:-3}
HACKBENCH_ARGS=${HACKBENCH_ARGS:--g 2 -l 100}

# ---- inside the guest ------------------------------------------------------------
guest_body() {
	local out=$1 saakm=build/tools/saakm i
	cd "$SAAKM_ROOT" || exit 1
	uname -r >"$out/kernel"
	nproc >"$out/cpus"

	insmod policies/fifo/saakm_fifo.ko || { echo "insmod saakm_fifo failed" >"$out/error"; exit 1; }
	$saakm list >"$out/policies" 2>&1

	# Alternate the two schedulers run by run, so drift hits both alike.
	for i in $(seq "$DEMO_REPS"); do
		# shellcheck disable=SC2086
		hackbench $HACKBENCH_ARGS >"$out/eevdf.$i" 2>&1 ||
			{ echo "hackbench under EEVDF failed" >"$out/error"; exit 1; }
		# shellcheck disable=SC2086
		$saakm run -p fifo -- hackbench $HACKBENCH_ARGS >"$out/saakm.$i" 2>&1 ||
			{ echo "hackbench under SaaKM FIFO failed" >"$out/error"; exit 1; }
	done
	# Prove the second configuration really ran under SaaKM: policy 8.
	$saakm run -p fifo -- sh -c 'grep "^policy" /proc/self/sched' >"$out/policy-check" 2>&1

	$saakm events fifo >"$out/events" 2>&1
	grep -h . /proc/saakm/errors >"$out/errors" 2>/dev/null
	rmmod saakm_fifo || { echo "rmmod saakm_fifo failed" >"$out/error"; exit 1; }
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
	make -s -C "$SAAKM_ROOT" kernel modules tools || die "build failed"
fi

run=$RESULTS_DIR/demo-$(date +%Y%m%d-%H%M%S)
mkdir -p "$run"
ln -sfn "$(basename "$run")" "$RESULTS_DIR/demo-latest"
console=$LOG_DIR/$(basename "$run").console.log

echo "demo: booting a guest (${CPUS:-2} vCPUs, TCG${ICOUNT:+, icount}): hackbench $HACKBENCH_ARGS, $DEMO_REPS runs each under EEVDF and SaaKM FIFO"
t0=$SECONDS
DEMO_REPS=$DEMO_REPS HACKBENCH_ARGS=$HACKBENCH_ARGS \
bash "$SAAKM_ROOT/scripts/vm.sh" --cpus "${CPUS:-2}" --timeout "${TIMEOUT:-900}" --rwdir "$run" \
	--log "$console" --exec "DEMO_REPS=$DEMO_REPS HACKBENCH_ARGS='$HACKBENCH_ARGS' bash scripts/demo.sh --guest '$run'"
vm_rc=$?

# ---- report ------------------------------------------------------------------------
# Times of one configuration, and "median (min-max)" of them.
times() { cat "$run/$1".* 2>/dev/null | sed -n 's/^Time: *//p'; }
summary() {
	times "$1" | sort -n | awk '{ v[NR] = $1 } END {
		if (!NR) { print "no result"; exit }
		printf "%.3f s median (%.3f-%.3f, %d runs)", v[int((NR + 1) / 2)], v[1], v[NR], NR }'
}

echo
echo "demo: results"
if [ -f "$run/status" ]; then
	echo "  kernel:      $(cat "$run/kernel") on $(cat "$run/cpus") vCPUs (TCG$([ -n "${ICOUNT:-}" ] && echo ", icount"))"
	echo "  policies:"
	sed 's/^/    /' "$run/policies"
	echo "  hackbench $HACKBENCH_ARGS (guest time; TCG is far slower than hardware):"
	echo "    EEVDF       $(summary eevdf)"
	echo "    SaaKM FIFO  $(summary saakm)"
	echo "    (checked: a task started by 'saakm run' has $(tr -s ' ' <"$run/policy-check"))"
	echo "  fifo events over all runs:"
	sed 's/^/    /' "$run/events"
	[ -s "$run/errors" ] && { echo "  policy errors:"; sed 's/^/    /' "$run/errors"; }
else
	echo "  the guest did not finish: $(cat "$run/error" 2>/dev/null || echo 'no result written')"
fi
echo "  wall time:   $(fmt_secs $((SECONDS - t0))) for boot + runs + power-off"
echo "  results:     ${run#"$SAAKM_ROOT"/}/"
echo "  console:     ${console#"$SAAKM_ROOT"/}"
[ -f "$run/status" ] && [ "$vm_rc" -eq 0 ]
