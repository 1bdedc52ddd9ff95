#!/bin/bash
# Benchmark runner (host side): `make bench`, `make bench-overhead`,
# `make bench-smoke` call it.
#
#   bench/run.sh [--study main|overhead|record|dispersive|all]
#                [--mode icount|realtime] [--cpus N | --shape NAME] [--reps N]
#                [--workloads "a b"] [--configs "a b"] [--smoke]
#                [--out DIR] [--timeout SECS] [--local] [--same-as DIR]
#                [--ext resident|own]
#
# --local runs the in-guest part (bench/guest.sh) on this machine instead of
# in a QEMU guest: for bare metal booted into a kernel with the combined
# patch (make patch), as root. Only the main and multi-policy studies.
# main      one guest: saakm_fifo and its sched_ext twin ext_fifo loaded,
#           EEVDF / ext / SaaKM interleaved run by run for every workload,
#           repeated --reps times (order rotated each repetition).
# overhead  (a) patched kernel with nothing loaded vs. unpatched 6.12
#               (build/linux-vanilla, bench/build-vanilla.sh), EEVDF only,
#               guests booted alternately (patched, vanilla, patched, vanilla);
#           (b) saakm_fifo alone vs. with 7 idle policies registered before
#               it (bench/nullpol), interleaved in one guest;
#           (c) the pipe round trip under SaaKM vs. EEVDF comes from main.
# record    saakm_fifo with the recorder off vs. on (the recorder's overhead
#           target, perf bench sched pipe), interleaved in one guest.
# dispersive  the ghOSt/Shinjuku experiment (bench/dispersive): EEVDF, SaaKM
#           fifo, SaaKM shinjuku and the tree's scx_central, one guest,
#           p99 latency vs. offered load (not part of --study all).
# --shape   boots the guests as a named shape (scripts/shapes.sh: llc4, epyc8,
#           smt16): its vCPUs, cache topology and NUMA nodes.
# --same-as DIR boots the kernel and loads the modules that an earlier run
#           (results directory DIR) used, not build/linux and the tree's
#           modules: the same benchmark again, e.g. on a loaded host.
# --configs replaces the configurations of the main (or dispersive) study:
#           names from bench/configs, e.g. "eevdf eevdf_mod wfq ext_wfq".
# --ext      resident (default): configurations without a sched_ext scheduler
#           run with the study's first partial-mode one enabled, as in the
#           SaaKM paper; own: a sched_ext scheduler is enabled only during
#           its own configuration's runs, so SaaKM and EEVDF run as they
#           would on a machine without one (the core's pick loop differs
#           while sched_ext is enabled: docs/benchmarks.md).
# Results: build/bench/<time>/ (results.json, results.md, chart.png, the raw
# per-run outputs and console logs); build/bench/latest points at it.
# In icount mode every run is bracketed by a calibration workload
# (bench/calib) and rerun when it moved (BENCH_CALIB=0 turns this off,
# BENCH_CALIB_TOL=% and BENCH_RERUNS=N tune it; BENCH_WORK and BENCH_TRACE_9P
# are passed to bench/guest.sh); the host's load is sampled
# while each guest runs (<guest>.hostload.tsv, summary in host.txt).
# Exit status: 0 if every guest ran and no run was rejected or left perturbed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib.sh"

study=main
mode=${BENCH_MODE:-icount}
cpus=${BENCH_CPUS:-}
shape=${BENCH_SHAPE:-}
reps=${BENCH_REPS:-5}
workloads=${BENCH_WORKLOADS:-}
configs=${BENCH_CONFIGS:-}
size=full
out=
timeout_s=${BENCH_TIMEOUT:-3600}
local_run=
same_as=
ext_mode=${BENCH_EXT:-resident}
while [ $# -gt 0 ]; do
	case $1 in
	--study) study=$2; shift ;;
	--mode) mode=$2; shift ;;
	--cpus) cpus=$2; shift ;;
	--shape) shape=$2; shift ;;
	--reps) reps=$2; shift ;;
	--workloads) workloads=$2; shift ;;
	--smoke) size=smoke ;;
	--out) out=$2; shift ;;
	--timeout) timeout_s=$2; shift ;;
	--local) local_run=1 ;;
	--same-as) same_as=$2; shift ;;
	--configs) configs=$2; shift ;;
	--ext) ext_mode=$2; shift ;;
	-h | --help) sed -n '2,/^set -uo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done
case $mode in icount | realtime) ;; *) die "--mode icount|realtime" ;; esac
case $ext_mode in resident | own) ;; *) die "--ext resident|own" ;; esac
# icount with several vCPUs delays cross-CPU wakeups by milliseconds
# (docs/benchmarks.md, "icount and cross-CPU wakeups"): the dispersive study,
# which measures microseconds, runs on one vCPU unless told otherwise.
if [ -n "$shape" ]; then
	. "$root/scripts/shapes.sh"
	spec=$(saakm_shape "$shape") || die "--shape $shape: no such shape (shapes: $SAAKM_SHAPES)"
	# a --cpus that differs is refused by vm.sh
	cpus=${cpus:-${spec%% *}}
fi
if [ -z "$cpus" ]; then
	cpus=2
	[ "$study" = dispersive ] && [ "$mode" = icount ] && cpus=1
fi
[ -z "$local_run" ] || mode=bare-metal
[ -n "$out" ] || out=$BUILD_DIR/bench/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
out=$(cd "$out" && pwd)
ln -sfn "$(basename "$out")" "$BUILD_DIR/bench/latest" 2>/dev/null || true
vmopts=(-c "$cpus" -t "$timeout_s" -w "$out" -f '^bench: ')
[ -z "$shape" ] || vmopts+=(--shape "$shape")
[ "$mode" = icount ] && vmopts+=(--icount)
calib=${BENCH_CALIB:-$([ "$mode" = icount ] && echo 1 || echo 0)}
cat >"$out/host.txt" <<EOT
mode=$mode
calibration=$([ "$calib" = 1 ] && echo on || echo off) tolerance_pct=${BENCH_CALIB_TOL:-1.5} reruns=${BENCH_RERUNS:-2}
host_cpus=$(nproc)
host_loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)
kernel_and_modules_from=${same_as:-build/linux and the tree}
cpus=$cpus
shape=${shape:-none}
reps=$reps
size=$size
study=$study
ext_mode=$ext_mode
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null)$(git -C "$root" diff --quiet HEAD -- kernel policies 2>/dev/null || echo "+dirty(kernel/policies)")
host=$(uname -r)
date=$(date -Is)
EOT

# The guests run snapshots of the script, the kernels and the modules, so
# bench/ can be edited and the kernel rebuilt while a run goes on.
cp "$root/bench/guest.sh" "$out/guest.sh"
# The calibration workload, static so that its exec needs no library from
# the host (the guest copies it to its tmpfs).
if [ "$calib" = 1 ]; then
	gcc -O2 -Wall -Wextra -Werror -static -pthread -o "$out/calib" "$root/bench/calib.c" ||
		die "cannot build bench/calib.c"
fi
snap_kernel() { # NAME TREE -> prints the snapshot directory
	snapshot_kernel "$2" "$out/kernels/$1"
	echo "$out/kernels/$1"
}
# The configurations of each study (bench/configs names them all).
main_cfgs=${configs:-eevdf ext saakm}
disp_cfgs=${configs:-eevdf saakm shinjuku scx_central}
case $study in
main) need="$main_cfgs" ;;
overhead) need="nopol saakm1 saakm8" ;;
record) need="saakm saakmrec" ;;
all) need="$main_cfgs nopol saakm1 saakm8 saakm saakmrec" ;;
dispersive) need="$disp_cfgs" ;;
*) die "--study main|overhead|record|dispersive|all" ;;
esac
# Snapshots of the table and of every module the studies load; a policy or
# sched_ext scheduler that is not built is an error naming the file.
cp "$root/bench/configs" "$out/configs"
mkdir -p "$out/modules"
for c in $need; do
	line=$(awk -v n="$c" '$1 !~ /^#/ && $1 == n { print; exit }' "$out/configs")
	[ -n "$line" ] || die "unknown configuration $c (not in bench/configs)"
	set -- $line
	mod=${3%%:*} scx=${4%%:*}
	if [ "$mod" != - ]; then
		[ -f "$root/$mod" ] || die "configuration $c: $mod missing (not built: make modules, or build that policy)"
		if [ -n "$same_as" ]; then
			cp "$same_as/modules/$(basename "$mod")" "$out/modules/" || die "$same_as has no $(basename "$mod")"
		else
			cp "$root/$mod" "$out/modules/"
		fi
	fi
	[ "$scx" = - ] || [ -x "$root/$scx" ] || die "configuration $c: $scx missing (not built: make bench-progs)"
	case ",$5," in *,policies=*)
		[ -f "$root/bench/nullpol/saakm_nullpol.ko" ] || die "configuration $c: bench/nullpol/saakm_nullpol.ko missing (make bench-progs)"
		cp "$root/bench/nullpol/saakm_nullpol.ko" "$out/modules/" ;;
	esac
done
if [ -n "$same_as" ]; then
	[ -f "$same_as/kernels/patched/arch/x86/boot/bzImage" ] || die "no kernel snapshot in $same_as"
	KDIR=$same_as/kernels/patched
fi
[ -n "$local_run" ] || KDIR=$(snap_kernel patched "$KDIR")
export BENCH_MODDIR=$out/modules BENCH_CONFIG_TABLE=$out/configs
rc=0
# cpu_ticks: busy and idle jiffies of the whole host (/proc/stat)
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6; exit }' /proc/stat; }
# qemu_ticks PID: CPU jiffies used so far by process PID (0 if gone)
qemu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# hostload NAME: every 2 s while guest NAME runs, one line of
# $out/NAME.hostload.tsv: seconds since start, host CPU busy % (all host
# CPUs = 100), the part of it that is not this guest's QEMU, the 1-minute
# load average, and how many runs the guest had finished (runs.tsv), so
# report.py can give each run the host load it ran next to.
hostload() {
	local name=$1 t0=$SECONDS pid='' q0=0 q1 b0 i0 b1 i1 n
	printf 't_s\tbusy_pct\tother_pct\tloadavg1\truns_done\n' >"$out/$name.hostload.tsv"
	read -r b0 i0 < <(cpu_ticks)
	while sleep 2; do
		# this guest's QEMU: the one sharing this guest's results directory
		if [ -z "$pid" ] || [ ! -d "/proc/$pid" ]; then
			pid=$(pgrep -f "qemu-system.*path=$out," | head -1)
			q0=$(qemu_ticks "${pid:-0}")
		fi
		read -r b1 i1 < <(cpu_ticks)
		q1=$(qemu_ticks "${pid:-0}")
		n=0
		[ ! -f "$out/$name/runs.tsv" ] || n=$(($(wc -l <"$out/$name/runs.tsv") - 1))
		awk -v t=$((SECONDS - t0)) -v b=$((b1 - b0)) -v i=$((i1 - i0)) -v q=$((q1 - q0)) \
			-v l="$(cut -d' ' -f1 /proc/loadavg)" -v n=$((n < 0 ? 0 : n)) 'BEGIN {
			tot = b + i; o = tot ? 100 * (b - q) / tot : 0
			printf "%d\t%.1f\t%.1f\t%s\t%d\n", t, tot ? 100 * b / tot : 0, o < 0 ? 0 : o, l, n }' \
			>>"$out/$name.hostload.tsv"
		b0=$b1 i0=$i1 q0=$q1
	done
}
# guest NAME KERNEL_DIR ENV...: boot one guest running bench/guest.sh into $out/NAME
guest() {
	local name=$1 kdir=$2
	shift 2
	[ -n "$local_run" ] || log "bench: guest '$name' ($cpus vCPUs, $mode, kernel ${kdir#"$root"/})"
	local envs="BENCH_ROOT='$root' BENCH_SIZE=$size BENCH_REPS=$reps BENCH_MODDIR='$BENCH_MODDIR' BENCH_CONFIG_TABLE='$BENCH_CONFIG_TABLE' BENCH_EXT=$ext_mode BENCH_CALIB=$calib BENCH_CALIB_BIN='$out/calib' ${BENCH_CALIB_TOL:+BENCH_CALIB_TOL=$BENCH_CALIB_TOL} ${BENCH_RERUNS:+BENCH_RERUNS=$BENCH_RERUNS} ${BENCH_WORK:+BENCH_WORK='$BENCH_WORK'} ${BENCH_TRACE_9P:+BENCH_TRACE_9P=$BENCH_TRACE_9P} $*"
	if [ -n "$local_run" ]; then
		log "bench: running '$name' on this machine ($(uname -r), $(nproc) CPUs)"
		eval "env $envs sh '$out/guest.sh' '$out/$name'" 2>&1 | tee "$out/$name.console.log" | grep '^bench: '
		[ -f "$out/$name/done" ] && [ ! -f "$out/$name/error" ] || rc=1
		return
	fi
	hostload "$name" &
	local sampler=$!
	bash "$root/scripts/vm.sh" "${vmopts[@]}" -k "$kdir" -l "$out/$name.console.log" \
		-e "env $envs sh '$out/guest.sh' '$out/$name'"
	local st=$?
	kill "$sampler" 2>/dev/null
	wait "$sampler" 2>/dev/null
	awk -F'\t' -v n="$name" 'NR > 1 { b += $2; o += $3; if ($3 > mo) mo = $3; if ($4 > ml) ml = $4; k++ }
		END { if (k) printf "hostload_%s=busy_pct_mean=%.1f other_pct_mean=%.1f other_pct_max=%.1f loadavg1_max=%s samples=%d\n", n, b / k, o / k, mo, ml, k }' \
		"$out/$name.hostload.tsv" >>"$out/host.txt"
	if [ "$st" -ne 0 ] || [ ! -f "$out/$name/done" ] || [ -f "$out/$name/error" ]; then
		log "bench: guest '$name' failed (status $st)$( [ -f "$out/$name/error" ] && echo ": $(cat "$out/$name/error")")"
		rc=1
	fi
}

if [ "$study" = main ] || [ "$study" = all ]; then
	guest main "$KDIR" BENCH_CONFIGS="'$main_cfgs'" ${workloads:+BENCH_WORKLOADS="'$workloads'"}
fi
if [ "$study" = overhead ] || [ "$study" = all ]; then
	ow=${BENCH_OVERHEAD_WORKLOADS:-pipe pipe_1cpu hackbench_proc messaging}
	if [ -n "$local_run" ]; then
		log "bench: --local: skipping patched-vs-unpatched (needs two kernels; boot each and run --study main)"
	else
		[ -f "$BUILD_DIR/linux-vanilla/arch/x86/boot/bzImage" ] || die "no unpatched kernel: run bench/build-vanilla.sh"
		vdir=$(snap_kernel vanilla "$BUILD_DIR/linux-vanilla")
		half=$(( (reps + 1) / 2 ))
		for i in 1 2; do
			guest "nopol-patched-$i" "$KDIR" BENCH_REPS=$half BENCH_CONFIGS=nopol BENCH_WORKLOADS="'$ow'"
			guest "nopol-vanilla-$i" "$vdir" BENCH_REPS=$half BENCH_CONFIGS=nopol BENCH_WORKLOADS="'$ow'"
		done
	fi
	guest multipol "$KDIR" BENCH_CONFIGS="'saakm1 saakm8'" BENCH_WORKLOADS="'${BENCH_MULTIPOL_WORKLOADS:-pipe pipe_1cpu hackbench_proc wakelat}'"
fi
if [ "$study" = record ] || [ "$study" = all ]; then
	guest record "$KDIR" BENCH_CONFIGS="'saakm saakmrec'" BENCH_WORKLOADS="'${BENCH_RECORD_WORKLOADS:-pipe pipe_1cpu hackbench_proc}'"
fi
if [ "$study" = dispersive ]; then
	guest dispersive "$KDIR" BENCH_CONFIGS="'$disp_cfgs'" BENCH_WORKLOADS=dispersive \
		${BENCH_DISP_SECS:+BENCH_DISP_SECS=$BENCH_DISP_SECS} ${BENCH_DISP_LOADS:+BENCH_DISP_LOADS=$BENCH_DISP_LOADS} \
		${BENCH_DISP_ARGS:+BENCH_DISP_ARGS="'$BENCH_DISP_ARGS'"}
fi

echo "host_loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/host.txt"
"$VENV/bin/python" "$root/bench/report.py" "$out" || rc=1
bad=$(cat "$out"/*/runs.tsv 2>/dev/null | awk -F'\t' '$1 != "workload" && $5 != 1' | wc -l)
[ "$bad" -eq 0 ] || { log "bench: $bad run(s) rejected (wrong class or failed), see runs.tsv"; rc=1; }
# a run still perturbed after its reruns: its last attempt is perturbed
left=$(cat "$out"/*/runs.tsv 2>/dev/null | awk -F'\t' '$1 != "workload" && NF >= 7 { last[$1 FS $2 FS $3] = $7 }
	END { for (k in last) n += last[k] == 1; print n + 0 }')
[ "$left" -eq 0 ] || { log "bench: $left run(s) still perturbed after ${BENCH_RERUNS:-2} reruns (calibration moved), see results.md"; rc=1; }
log "bench: results in ${out#"$root"/} (results.md, results.json, chart.png)"
exit $rc
