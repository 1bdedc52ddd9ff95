#!/bin/bash
# Replay speed (the target: a recorded 10 s hackbench run replays in
# at most 2 s on the host): `make bench-replay` calls it.
#
#   bench/replay-speed.sh [--secs S] [--reps N] [--out DIR]
#
# 1. A guest (normal kernel, 2 vCPUs, real time) loads saakm_fifo and runs
#    `saakm record -p fifo -- sh -c 'hackbench ... until S seconds passed'`,
#    writing the recording into the results directory.
# 2. On the host, `saakm replay REC policies/fifo/saakm_fifo.c` runs once to
#    build and check it (it must match: exit 0), then N more times, timed.
# Results: build/bench/replay-<time>/results.md (mean and 95% interval of
# the replay time, records per second, guest seconds per replay second).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib.sh"

secs=10
reps=5
out=
while [ $# -gt 0 ]; do
	case $1 in
	--secs) secs=$2; shift ;;
	--reps) reps=$2; shift ;;
	--out) out=$2; shift ;;
	-h | --help) sed -n '2,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done
[ -n "$out" ] || out=$BUILD_DIR/bench/replay-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
out=$(cd "$out" && pwd)
saakm=$BUILD_DIR/tools/saakm
[ -x "$saakm" ] || die "$saakm missing: make tools"
rec=$out/hackbench.rec

log "bench: recording hackbench under saakm_fifo for ${secs} s in a guest"
cat >"$out/guest.sh" <<EOF
set -e
insmod '$root/policies/fifo/saakm_fifo.ko'
'$saakm' record -p fifo -b 262144 -o '$rec' -- sh -c \
	'end=\$((\$(date +%s) + $secs)); while [ \$(date +%s) -lt \$end ]; do hackbench -g 2 -l 50 >/dev/null; done'
rmmod saakm_fifo
EOF
bash "$root/scripts/vm.sh" -c 2 -t 900 -w "$out" -k "$KDIR" -l "$out/guest.console.log" \
	-e "sh '$out/guest.sh'" >"$out/guest.out" 2>&1 || {
	tail -20 "$out/guest.out"
	die "the recording guest failed (console: ${out#"$root"/}/guest.console.log)"
}
grep -E '^saakm record' "$out/guest.out" | sed 's/^/bench: guest: /'
[ -s "$rec" ] || die "no recording in $rec"

log "bench: replaying on the host: 1 check run, then $reps timed"
"$saakm" replay "$rec" "$root/policies/fifo/saakm_fifo.c" >"$out/replay-check.out" 2>&1 ||
	{ cat "$out/replay-check.out"; die "replay did not match the recording"; }
for i in $(seq "$reps"); do
	s=$(date +%s.%N)
	"$saakm" replay "$rec" "$root/policies/fifo/saakm_fifo.c" >/dev/null 2>&1 || die "replay $i failed"
	awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { print b - a }'
done >"$out/replay-secs.txt"

python3 - "$rec" "$out" "$(nproc)" <<'PY'
import math, statistics, struct, sys
rec, out, ncpu = sys.argv[1], sys.argv[2], sys.argv[3]
with open(rec, "rb") as f:
    hdr = f.read(40)
    header_size, = struct.unpack_from("<I", hdr, 12)
    nr, = struct.unpack_from("<Q", hdr, 24)
    f.seek(header_size)
    first = struct.unpack("<QQ", f.read(16))[1]
    f.seek(header_size + (nr - 1) * 48)
    last = struct.unpack("<QQ", f.read(16))[1]
guest_s = (last - first) / 1e9
times = [float(x) for x in open(f"{out}/replay-secs.txt")]
mean = statistics.mean(times)
# 95% Student t interval of the mean
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}
ci = T95.get(len(times) - 1, 2.0) * statistics.stdev(times) / math.sqrt(len(times)) if len(times) > 1 else float("nan")
lines = [
    "# Replay speed\n",
    f"Recording: {nr} records, {guest_s:.2f} s of guest time (hackbench under saakm_fifo, 2 vCPUs, TCG).",
    f"Replay on the host ({ncpu} CPUs), {len(times)} timed runs after a check run that matched.\n",
    "| replay time (s) | records/s | guest s per replay s | target |",
    "|---|---|---|---|",
    f"| {mean:.3f} ± {ci:.3f} | {nr / mean:,.0f} | {guest_s / mean:.1f} | "
    f"{'met' if mean + ci <= 2.0 * guest_s / 10 else 'missed'}: ≤ 2 s per 10 s of guest time |",
]
open(f"{out}/results.md", "w").write("\n".join(lines) + "\n")
print("\n".join("bench: " + l for l in lines if l))
PY
log "bench: results in ${out#"$root"/}/results.md"
