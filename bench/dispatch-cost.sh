#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Cost of a dispatch from the shared queue, in a guest running
# the SaaKM kernel: shinjuku with more runnable short tasks than CPUs
# (wakelat: 2 messengers each waking 6 workers that spin a little), so CPUs
# that run out of work keep pulling the oldest task of another CPU through
# newly_idle + balance_pick + the class's migration. The run is recorded
# (saakm record); bench/dispatch-cost.py times, from the recording's
# CALL/RET timestamps, each pull (and its class part: rq locks and
# migration) next to each local pick (schedule()).
#
#   bench/dispatch-cost.sh [OUT_DIR]      (default /tmp/dispatch-cost)
#   SLICE_US=30 ROUNDS=3000 in the environment change the run.
#
# Writes OUT_DIR/shinjuku.rec, wakelat.txt and dispatch-cost.txt (also
# printed). Needs build/tools/saakm, build/bench/wakelat and
# policies/shinjuku/saakm_shinjuku.ko. The kernels have no function tracer
# (no CONFIG_FUNCTION_GRAPH_TRACER), hence the recording: its own cost, a
# trace event per record, is in every figure.
set -eu
root=${SAAKM_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
out=${1:-/tmp/dispatch-cost}
saakm=$root/build/tools/saakm
mkdir -p "$out"
lsmod | grep -q '^saakm_shinjuku ' && rmmod saakm_shinjuku
insmod "$root/policies/shinjuku/saakm_shinjuku.ko" "slice_us=${SLICE_US:-30}"
trap 'rmmod saakm_shinjuku 2>/dev/null || true' EXIT
"$saakm" record -p shinjuku -m saakm_shinjuku -o "$out/shinjuku.rec" -- \
	"$root/build/bench/wakelat" -m 2 -t 6 -n "${ROUNDS:-3000}" >"$out/wakelat.txt"
cat "$out/wakelat.txt"
echo "events: $("$saakm" get events shinjuku | tr '\n' ' ')"
"$saakm" dump "$out/shinjuku.rec" | python3 "$root/bench/dispatch-cost.py" | tee "$out/dispatch-cost.txt"
