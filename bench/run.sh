#!/bin/bash
# Benchmark runner (host side): `make bench`, `make bench-overhead`,
# `make bench-smoke` call it.
#
#   bench/run.sh [--study main|overhead|all] [--mode icount|realtime]
#                [--cpus N] [--reps N] [--workloads "a b"] [--smoke]
#                [--out DIR] [--timeout SECS]
#
# main      one guest: saakm_fifo and its sched_ext twin ext_fifo loaded,
#           EEVDF / ext / SaaKM interleaved run by run for every workload,
#           repeated --reps times (order rotated each repetition).
# overhead  (a) patched kernel with nothing loaded vs. unpatched 6.12
#               (build/linux-vanilla, bench/build-vanilla.sh), EEVDF only,
#               guests booted alternately (patched, vanilla, patched, vanilla);
#           (b) saakm_fifo alone vs. with 7 idle policies registered before
#               it (bench/nullpol), interleaved in one guest;
#           (c) the pipe round trip under SaaKM vs. EEVDF comes from main.
# Results: build/bench/<time>/ (results.json, results.md, chart.png, the raw
# per-run outputs and console logs); build/bench/latest points at it.
# Exit status: 0 if every guest ran and no run was rejected.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib.sh"

study=main
mode=${BENCH_MODE:-icount}
cpus=${BENCH_CPUS:-2}
reps=${BENCH_REPS:-5}
workloads=${BENCH_WORKLOADS:-}
size=full
out=
timeout_s=${BENCH_TIMEOUT:-3600}
while [ $# -gt 0 ]; do
	case $1 in
	--study) study=$2; shift ;;
	--mode) mode=$2; shift ;;
	--cpus) cpus=$2; shift ;;
	--reps) reps=$2; shift ;;
	--workloads) workloads=$2; shift ;;
	--smoke) size=smoke ;;
	--out) out=$2; shift ;;
	--timeout) timeout_s=$2; shift ;;
	-h | --help) sed -n '2,22s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done
case $mode in icount | realtime) ;; *) die "--mode icount|realtime" ;; esac
[ -n "$out" ] || out=$BUILD_DIR/bench/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
out=$(cd "$out" && pwd)
ln -sfn "$(basename "$out")" "$BUILD_DIR/bench/latest" 2>/dev/null || true
vmopts=(-c "$cpus" -t "$timeout_s" -w "$out" -f '^bench: ')
[ "$mode" = icount ] && vmopts+=(--icount)
cat >"$out/host.txt" <<EOT
mode=$mode
cpus=$cpus
reps=$reps
size=$size
study=$study
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null)$(git -C "$root" diff --quiet HEAD -- kernel policies 2>/dev/null || echo "+dirty(kernel/policies)")
host=$(uname -r)
date=$(date -Is)
EOT

# the guest runs this snapshot, so bench/ can be edited while a run goes on
cp "$root/bench/guest.sh" "$out/guest.sh"
rc=0
# guest NAME KERNEL_DIR ENV...: boot one guest running bench/guest.sh into $out/NAME
guest() {
	local name=$1 kdir=$2
	shift 2
	log "bench: guest '$name' ($cpus vCPUs, $mode, kernel ${kdir#"$root"/})"
	local envs="BENCH_ROOT='$root' BENCH_SIZE=$size BENCH_REPS=$reps $*"
	bash "$root/scripts/vm.sh" "${vmopts[@]}" -k "$kdir" -l "$out/$name.console.log" \
		-e "env $envs sh '$out/guest.sh' '$out/$name'"
	local st=$?
	if [ "$st" -ne 0 ] || [ ! -f "$out/$name/done" ] || [ -f "$out/$name/error" ]; then
		log "bench: guest '$name' failed (status $st)$( [ -f "$out/$name/error" ] && echo ": $(cat "$out/$name/error")")"
		rc=1
	fi
}

if [ "$study" = main ] || [ "$study" = all ]; then
	guest main "$KDIR" BENCH_CONFIGS="'eevdf ext saakm'" ${workloads:+BENCH_WORKLOADS="'$workloads'"}
fi
if [ "$study" = overhead ] || [ "$study" = all ]; then
	ow=${BENCH_OVERHEAD_WORKLOADS:-pipe hackbench_proc messaging}
	[ -f "$BUILD_DIR/linux-vanilla/arch/x86/boot/bzImage" ] || die "no unpatched kernel: run bench/build-vanilla.sh"
	half=$(( (reps + 1) / 2 ))
	for i in 1 2; do
		guest "nopol-patched-$i" "$KDIR" BENCH_REPS=$half BENCH_CONFIGS=nopol BENCH_WORKLOADS="'$ow'"
		guest "nopol-vanilla-$i" "$BUILD_DIR/linux-vanilla" BENCH_REPS=$half BENCH_CONFIGS=nopol BENCH_WORKLOADS="'$ow'"
	done
	guest multipol "$KDIR" BENCH_CONFIGS="'saakm1 saakm8'" BENCH_WORKLOADS="'${BENCH_MULTIPOL_WORKLOADS:-pipe hackbench_proc wakelat}'"
fi

"$VENV/bin/python" "$root/bench/report.py" "$out" || rc=1
bad=$(cat "$out"/*/runs.tsv 2>/dev/null | awk -F'\t' '$1 != "workload" && $5 != 1' | wc -l)
[ "$bad" -eq 0 ] || { log "bench: $bad run(s) rejected (wrong class or failed), see runs.tsv"; rc=1; }
log "bench: results in ${out#"$root"/} (results.md, results.json, chart.png)"
exit $rc
