#!/bin/sh
# In-guest half of the benchmark runner (bench/run.sh boots the guest and
# calls this; tests/guest/t_bench_smoke.sh calls it in smoke mode).
#
#   bench/guest.sh OUTDIR
#
# Environment:
#   BENCH_CONFIGS    configurations to interleave (default "eevdf ext saakm"),
#                    names from the table bench/configs (eevdf, nopol, ext,
#                    saakm, saakm1, saakm8, saakmrec, wfq, eevdf_mod,
#                    ext_wfq, shinjuku, scx_central): the class, the SaaKM
#                    module and the sched_ext scheduler of each
#   BENCH_WORKLOADS  workloads (default: all but dispersive, see wl_cmd below)
#   BENCH_REPS       repetitions (default 5)
#   BENCH_SIZE       full | smoke (tiny sizes, no warm-up run)
#   BENCH_CONFIG_TABLE  the configuration table (default bench/configs;
#                    bench/run.sh passes its snapshot)
#   BENCH_MODDIR     directory with snapshots of the modules (bench/run.sh);
#                    a module not there is taken from the repository
#   BENCH_DISP_SECS, BENCH_DISP_LOADS, BENCH_DISP_ARGS  seconds per load
#                    point, the loads (fractions of capacity, comma-separated)
#                    and extra options of dispersive
#
# Every run goes through build/bench/schedrun, which puts the workload in the
# configuration's class and samples the class of all its tasks; its verdict
# line is appended to OUTDIR/checks.txt and the run's output is
# OUTDIR/raw/<workload>.<config>.<rep>.out. OUTDIR/runs.tsv lists every run
# (workload config rep status valid); OUTDIR/done is written last.
set -u
# BENCH_ROOT: the repository (bench/run.sh runs a snapshot copy of this script
# from the results directory, so editing bench/ during a run is harmless)
root=${BENCH_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
out=${1:?usage: guest.sh OUTDIR}
mkdir -p "$out/raw"
out=$(cd "$out" && pwd)
export PATH="$PATH:/usr/games:/usr/sbin:/sbin"
B=$root/build/bench
configs=${BENCH_CONFIGS:-eevdf ext saakm}
table=${BENCH_CONFIG_TABLE:-$root/bench/configs}
all_wl="hackbench_proc hackbench_thr pipe pipe_1cpu messaging wakelat 7zip stockfish ffmpeg"
last_cpu=$(($(nproc) - 1))
workloads=${BENCH_WORKLOADS:-$all_wl}
reps=${BENCH_REPS:-5}
size=${BENCH_SIZE:-full}
work=/tmp/bench-work
mkdir -p "$work"

say() { echo "bench: $*"; }
fail() {
	say "error: $*"
	echo "$*" >"$out/error"
	[ -z "${scx_pid:-}" ] || { kill -INT "$scx_pid"; wait "$scx_pid"; }
	echo done >"$out/done"
	exit 1
}

# wl_cmd NAME: the command line of a workload at the current size
wl_cmd() {
	if [ "$size" = smoke ]; then
		case $1 in
		hackbench_proc) echo "hackbench -g 2 -l 20" ;;
		hackbench_thr) echo "hackbench -T -g 2 -l 20" ;;
		pipe) echo "perf bench sched pipe -l 1000" ;;
		pipe_1cpu) echo "taskset -c $last_cpu perf bench sched pipe -l 1000" ;;
		messaging) echo "perf bench sched messaging -g 1 -l 10" ;;
		wakelat) echo "$B/wakelat -m 2 -t 2 -n 100 -w 2000" ;;
		7zip) echo "7zz a -bd -bt -t7z -mx=5 -mmt=2 -md=64k $work/o.7z $work/seq-small.txt" ;;
		stockfish) echo "stockfish bench 16 2 2" ;;
		ffmpeg) echo "ffmpeg -nostdin -hide_banner -nostats -benchmark -f lavfi -i testsrc=duration=0.2:size=160x120:rate=25 -c:v mpeg4 -threads 2 -f null -" ;;
		dispersive) echo "$B/dispersive $disp_cal -d ${BENCH_DISP_SECS:-0.3} -l ${BENCH_DISP_LOADS:-0.3,0.7} ${BENCH_DISP_ARGS:-}" ;;
		*) return 1 ;;
		esac
	else
		case $1 in
		hackbench_proc) echo "hackbench -g 4 -l 100" ;;
		hackbench_thr) echo "hackbench -T -g 4 -l 100" ;;
		pipe) echo "perf bench sched pipe -l 20000" ;;
		pipe_1cpu) echo "taskset -c $last_cpu perf bench sched pipe -l 20000" ;;
		messaging) echo "perf bench sched messaging -g 2 -l 20" ;;
		wakelat) echo "$B/wakelat -m 2 -t 2 -n 2000 -w 2000" ;;
		7zip) echo "7zz a -bd -bt -t7z -mx=5 -mmt=2 -md=256k $work/o.7z $work/seq.txt" ;;
		stockfish) echo "stockfish bench 16 2 5" ;;
		ffmpeg) echo "ffmpeg -nostdin -hide_banner -nostats -benchmark -f lavfi -i testsrc=duration=4:size=352x288:rate=25 -c:v mpeg4 -threads 2 -f null -" ;;
		dispersive) echo "$B/dispersive $disp_cal -d ${BENCH_DISP_SECS:-2} -l ${BENCH_DISP_LOADS:-0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0} ${BENCH_DISP_ARGS:-}" ;;
		*) return 1 ;;
		esac
	fi
}

# wl_opts NAME: schedrun options of a workload. dispersive's load generator
# thread is SCHED_FIFO (it stands for the clients, outside the scheduler
# under test): schedrun accepts it by name, and only as an RT thread.
wl_opts() {
	case $1 in
	dispersive) echo "-x disp-gen" ;;
	esac
}
# the dispersive sweep calibrates once (dispersive -C, before any scheduler
# is loaded) and every run gets the same -i/-c: same offered load everywhere
disp_cal=

# cfg NAME: read configuration NAME of the table into c_class, c_policy
# (saakm:NAME), c_ops (ext:OPS), c_mod and c_modparams, c_scx and c_scxargs,
# c_flags; fails if NAME is not in the table
cfg() {
	_l=$(awk -v n="$1" '$1 !~ /^#/ && $1 == n { print; exit }' "$table")
	[ -n "$_l" ] || return 1
	set -- $_l
	c_class=$2 c_flags=$5 c_policy= c_ops= c_mod= c_modparams= c_scx= c_scxargs=
	case $c_class in
	saakm:*) c_policy=${c_class#saakm:} ;;
	ext:*) c_ops=${c_class#ext:} ;;
	eevdf) ;;
	*) return 1 ;;
	esac
	if [ "$3" != - ]; then
		c_mod=${3%%:*}
		case $3 in *:*) c_modparams=$(echo "${3#*:}" | tr , ' ') ;; esac
	fi
	if [ "$4" != - ]; then
		c_scx=${4%%:*}
		case $4 in *:*) c_scxargs=$(echo "${4#*:}" | tr , ' ') ;; esac
	fi
}
flag() { case ",$c_flags," in *",$1,"* | *",$1="*) return 0 ;; esac; return 1; }
# flag_value NAME: the N of a NAME=N flag
flag_value() { echo ",$c_flags," | sed -n "s/.*,$1=\([^,]*\),.*/\1/p"; }
has() { case " $configs " in *" $1 "*) return 0 ;; esac; return 1; }

# --- environment --------------------------------------------------------------
{
	echo "kernel=$(uname -r)"
	echo "cpus=$(nproc)"
	echo "cmdline=$(cat /proc/cmdline)"
	echo "size=$size"
	echo "reps=$reps"
	echo "configs=$configs"
	echo "workloads=$workloads"
	echo "saakm_class=$([ -d /proc/saakm ] && echo yes || echo no)"
	echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
} >"$out/env.txt"
say "guest $(uname -r), $(nproc) CPUs, size $size, $reps rep(s), configs: $configs"

[ -r "$table" ] || fail "no configuration table $table"
for w in $workloads; do wl_cmd "$w" >/dev/null || fail "unknown workload $w"; done
for c in $configs; do cfg "$c" || fail "unknown configuration $c (not in $table)"; done
[ -x "$B/schedrun" ] || fail "$B/schedrun missing (make bench-progs)"
case " $workloads " in *" dispersive "*)
	[ -x "$B/dispersive" ] || fail "$B/dispersive missing (make bench-progs)"
	"$B/dispersive" -C >"$work/calib.out" 2>&1 || fail "dispersive -C: $(cat "$work/calib.out")"
	cp "$work/calib.out" "$out/raw/dispersive.calib.out"
	_ipu=$(sed -n 's/.* iters_per_us=\([0-9.]*\).*/\1/p' "$work/calib.out")
	_cap=$(sed -n 's/.* capacity_rps=\([0-9.]*\).*/\1/p' "$work/calib.out")
	[ -n "$_ipu" ] && [ -n "$_cap" ] || fail "dispersive -C printed no calibration"
	disp_cal="-i $_ipu -c $_cap"
	echo "dispersive_calibration=$disp_cal" >>"$out/env.txt"
	say "dispersive calibration: $(cat "$work/calib.out")" ;;
esac
case " $workloads " in *" 7zip "*)
	seq 1 400000 >"$work/seq.txt"; seq 1 20000 >"$work/seq-small.txt" ;;
esac
case " $workloads " in *" pipe "* | *" pipe_1cpu "* | *" messaging "*)
	perf bench sched pipe -l 10 >/dev/null 2>&1 || fail "perf bench does not run in this guest" ;;
esac

# --- schedulers ---------------------------------------------------------------
# /proc/saakm is read through the saakm CLI (libsaakm's parser)
saakm_cli=$root/build/tools/saakm
has_policy() { "$saakm_cli" get policies "$1" id >/dev/null 2>&1; }
nr_policies() { _n=$("$saakm_cli" list 2>/dev/null | grep -c '^[0-9]'); echo "${_n:-0}"; }
# ko PATH: set ko_file to a module's file, the run's snapshot if there is
# one; a policy that is not built is an error naming the missing file (not a
# command substitution: fail must end this shell)
ko() {
	ko_file=${BENCH_MODDIR:+$BENCH_MODDIR/$(basename "$1")}
	[ -n "$ko_file" ] && [ -f "$ko_file" ] && return 0
	ko_file=$root/$1
	[ -f "$ko_file" ] || fail "module $ko_file missing (not built: make modules, or build that policy)"
}
# policies registered before we loaded anything stay loaded at the end
preloaded=" $("$saakm_cli" list 2>/dev/null | awk '/^[0-9]/ { printf "%s ", $2 }')"
# load_module: the current configuration's policy module (cfg), if its
# policy is not registered yet
load_module() {
	[ -n "$c_mod" ] || return 0
	has_policy "$c_policy" && return 0
	ko "$c_mod"
	insmod "$ko_file" $c_modparams || fail "insmod $ko_file $c_modparams"
	has_policy "$c_policy" || fail "$c_mod loaded but no SaaKM policy named $c_policy"
}
# set_policies N: the current configuration's policy loaded, with N-1 idle
# policies (bench/nullpol) registered before it
null_ko=bench/nullpol/saakm_nullpol.ko
set_policies() {
	if [ "$1" -gt 1 ] && ! has_policy null0; then
		rmmod "$(basename "$c_mod" .ko)" 2>/dev/null
		ko "$null_ko"
		insmod "$ko_file" count=$(($1 - 1)) || fail "insmod $ko_file"
	elif [ "$1" -le 1 ] && has_policy null0; then
		rmmod saakm_nullpol || fail "rmmod saakm_nullpol"
	fi
	load_module
}
# The recorder, for the record flag: the policy's records go to a tracefs
# instance (64 MiB per CPU), as `saakm record` sets it up; rec_stop appends
# the number of records kept and lost to the run's output.
tr=/sys/kernel/tracing
inst=$tr/instances/saakm-bench
rec_start() {
	[ -d "$tr/instances" ] || mount -t tracefs nodev "$tr" || fail "cannot mount tracefs"
	[ -d "$inst" ] || mkdir "$inst" || fail "cannot create $inst"
	echo mono >"$inst/trace_clock"
	echo 65536 >"$inst/buffer_size_kb"
	echo 0 >"$inst/options/overwrite"
	: >"$inst/trace"
	echo 1 >"$inst/events/saakm/saakm_record/enable" || fail "no saakm:saakm_record event"
	"$saakm_cli" get policies "$c_policy" id >/sys/kernel/saakm/record || fail "cannot record $c_policy"
}
rec_stop() { # run output file
	echo 0 >/sys/kernel/saakm/record
	echo 0 >"$inst/events/saakm/saakm_record/enable"
	lost=$(cat "$inst"/per_cpu/cpu*/stats | awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }')
	echo "records=$(grep -c 'saakm_record:' "$inst/trace") lost=$lost" >>"$1"
	rmdir "$inst"
}

# sched_ext: one scheduler enabled at a time. Its loader's output goes to
# tmpfs (scx_central prints every second; a 9p write would move the icount
# clock) and is appended to OUTDIR/<binary>.log when it stops.
ext_state() { cat /sys/kernel/sched_ext/state 2>/dev/null; }
ext_ops() { cat /sys/kernel/sched_ext/root/ops 2>/dev/null; }
ext_all() { cat /sys/kernel/sched_ext/switch_all 2>/dev/null; }
scx_pid= scx_bin= scx_full=
# 6.12 runs ops.init() in an unbound RT kthread (scx_ops_enable_helper,
# created by the boot's first enable), and scx_central's init refuses to run
# off its central CPU 0 ("init from non-central CPU"). So that kthread is
# pinned to CPU 0 before every start (harmless for the others); if it did not
# exist yet and the loader exited, the start is tried once more, pinned.
pin_scx_helper() {
	for _d in /proc/[0-9]*; do
		[ "$(cat "$_d/comm" 2>/dev/null)" = scx_ops_enable_ ] || continue
		taskset -p 1 "${_d#/proc/}" >/dev/null 2>&1 && return 0
	done
	return 1
}
# scx_try BIN ARGS OPS: start the loader and wait until OPS is enabled (0),
# or the loader exited (1)
scx_try() {
	_log=$work/$(basename "$1").log
	"$root/$1" $2 >>"$_log" 2>&1 &
	scx_pid=$!
	i=0
	until [ "$(ext_state)" = enabled ] && [ "$(ext_ops)" = "$3" ]; do
		i=$((i + 1))
		[ $i -gt 600 ] && fail "$1 did not enable ($(ext_state) $(ext_ops)): $(tail -5 "$_log")"
		kill -0 "$scx_pid" 2>/dev/null || { wait "$scx_pid"; scx_pid=; return 1; }
		sleep 0.05
	done
}
# wait_ext_disabled WHEN: sched_ext back to disabled within 30 s, else fail
wait_ext_disabled() {
	i=0
	until [ "$(ext_state)" = disabled ]; do
		i=$((i + 1))
		[ $i -gt 600 ] && fail "sched_ext still $(ext_state) $1"
		sleep 0.05
	done
}
scx_start() { # BIN ARGS OPS FULL(1/empty)
	[ -x "$root/$1" ] || fail "sched_ext scheduler $root/$1 missing (not built: make bench-progs)"
	[ -d /sys/kernel/sched_ext ] || fail "cannot start $1: this kernel has no sched_ext"
	[ "$(ext_state)" = disabled ] || fail "cannot start $1: sched_ext is $(ext_state) ($(ext_ops))"
	: >"$work/$(basename "$1").log"
	_pinned=
	pin_scx_helper && _pinned=1
	if ! scx_try "$1" "$2" "$3"; then
		[ -z "$_pinned" ] && pin_scx_helper ||
			fail "$1 exited: $(tail -5 "$work/$(basename "$1").log")"
		say "$1 exited before the enable helper was pinned to CPU 0; starting it again"
		wait_ext_disabled "after $1 exited"
		scx_try "$1" "$2" "$3" || fail "$1 exited: $(tail -5 "$work/$(basename "$1").log")"
	fi
	scx_bin=$1 scx_full=$4
	# the table says whether it takes every task; the kernel must agree
	[ "$(ext_all)" = "$([ -n "$4" ] && echo 1 || echo 0)" ] ||
		fail "$1: switch_all is $(ext_all), the table says full='$4'"
	say "sched_ext: $(ext_state), ops $(ext_ops), switch_all $(ext_all)"
}
scx_stop() {
	[ -n "$scx_pid" ] || return 0
	kill -INT "$scx_pid"
	wait "$scx_pid"
	cat "$work/$(basename "$scx_bin").log" >>"$out/$(basename "$scx_bin").log"
	wait_ext_disabled "after stopping $scx_bin"
	scx_pid= scx_bin= scx_full=
}
# The study's resident sched_ext scheduler: the first partial-mode one of its
# configurations, enabled under the configurations that have none.
res_bin= res_args= res_ops=
for c in $configs; do
	cfg "$c"
	if [ -n "$c_scx" ] && ! flag full && [ -z "$res_bin" ]; then
		res_bin=$c_scx res_args=$c_scxargs res_ops=$c_ops
	fi
done
# scx_for: the current configuration's sched_ext scheduler (cfg) enabled:
# its own, or for one without, no full-mode one and the resident if none
scx_for() {
	if [ -n "$c_scx" ]; then
		[ "$scx_bin" = "$c_scx" ] && return 0
		scx_stop
		scx_start "$c_scx" "$c_scxargs" "$c_ops" "$(flag full && echo 1)"
	elif flag nothing; then
		scx_stop
	else
		[ -z "$scx_full" ] || scx_stop
		[ -n "$scx_pid" ] || [ -z "$res_bin" ] || scx_start "$res_bin" "$res_args" "$res_ops" ""
	fi
}
# scx_ok: the sched_ext state is the one the current configuration needs
scx_ok() {
	if [ -n "$c_scx" ]; then
		[ "$(ext_state)" = enabled ] && [ "$(ext_ops)" = "$c_ops" ] &&
			[ "$(ext_all)" = "$(flag full && echo 1 || echo 0)" ]
	elif flag nothing; then
		[ "$(ext_state)" != enabled ]
	else
		[ "$(ext_state)" != enabled ] || [ "$(ext_all)" = 0 ]
	fi
}

# every policy module of the study, for the whole study (in table order)
for c in $configs; do
	cfg "$c"
	load_module
done
[ "$(nr_policies)" -eq 0 ] || say "SaaKM policies: $("$saakm_cli" list | tr '\n' ';')"
if has nopol; then
	for c in $configs; do
		cfg "$c"
		flag nothing || fail "nopol cannot be mixed with other configurations ($c)"
	done
	[ "$(nr_policies)" -eq 0 ] || fail "nopol: a SaaKM policy is loaded"
	[ "$(ext_state)" != enabled ] || fail "nopol: a sched_ext scheduler is enabled ($(ext_ops))"
fi
# the resident scheduler from the start, as in the SaaKM paper's setup
[ -z "$res_bin" ] || scx_start "$res_bin" "$res_args" "$res_ops" ""

# --- runs ---------------------------------------------------------------------
printf 'workload\tconfig\trep\tstatus\tvalid\n' >"$out/runs.tsv"
run_one() { # workload config rep
	w=$1 c=$2 r=$3
	valid=1
	cfg "$c"
	n=$(flag_value policies)
	[ -z "$n" ] || set_policies "$n"
	scx_for
	if ! scx_ok; then
		say "$c: wrong sched_ext state before the run ($(ext_state) $(ext_ops) switch_all $(ext_all))"
		valid=0
	fi
	f=$out/raw/$w.$c.$r.out
	flag record && rec_start
	# output to tmpfs first: a write over 9p would stall the run (and under
	# icount, warp the guest clock)
	(cd "$work" && "$B/schedrun" -o "$work/check" -l "$w/$c/$r" $(wl_opts "$w") "$c_class" -- $(wl_cmd "$w")) >"$work/run.out" 2>&1
	st=$?
	cp "$work/run.out" "$f"
	flag record && rec_stop "$f"
	cat "$work/check" >>"$out/checks.txt"
	rm -f "$work/check" "$work/o.7z"
	grep -q '^schedrun: .* ok=1 ' "$f" || valid=0
	[ "$st" -eq 0 ] || valid=0
	if ! scx_ok; then
		say "$c: wrong sched_ext state after the run ($(ext_state) $(ext_ops) switch_all $(ext_all))"
		valid=0
	fi
	[ -z "$n" ] || [ "$(nr_policies)" -eq "$n" ] || valid=0
	echo "policies=$(nr_policies)" >>"$f"
	echo "sched_ext=$(ext_state):$(ext_ops):switch_all=$(ext_all)" >>"$f"
	printf '%s\t%s\t%s\t%s\t%s\n' "$w" "$c" "$r" "$st" "$valid" >>"$out/runs.tsv"
	[ "$valid" = 1 ] || say "REJECTED $w/$c/$r (status $st): $(grep '^schedrun:' "$f" | tail -1)"
}

if [ "$size" != smoke ]; then
	for w in $workloads; do
		# dispersive's binary is cached by its calibration; a warm-up
		# sweep would cost as much as a measured one
		[ "$w" = dispersive ] && continue
		say "warm-up $w"
		(cd "$work" && $(wl_cmd "$w")) >"$work/run.out" 2>&1
		cp "$work/run.out" "$out/raw/$w.warmup.out"
		rm -f "$work/o.7z"
	done
fi
t0=$(date +%s)
r=1
while [ "$r" -le "$reps" ]; do
	for w in $workloads; do
		# rotate the order of the configurations from one repetition to the next
		set -- $configs
		k=$(( (r - 1) % $# ))
		while [ "$k" -gt 0 ]; do c1=$1; shift; set -- "$@" "$c1"; k=$((k - 1)); done
		for c in "$@"; do run_one "$w" "$c" "$r"; done
	done
	say "repetition $r/$reps done ($(( $(date +%s) - t0 ))s guest time)"
	r=$((r + 1))
done

scx_stop
has_policy null0 && rmmod saakm_nullpol
# leave the guest as we found it (the smoke test runs inside the test suite)
for c in $configs; do
	cfg "$c"
	[ -n "$c_mod" ] || continue
	case $preloaded in *" $c_policy "*) continue ;; esac
	! has_policy "$c_policy" || rmmod "$(basename "$c_mod" .ko)" 2>/dev/null
done
echo "guest_seconds=$(( $(date +%s) - t0 ))" >>"$out/env.txt"
say "all runs done; $(awk -F'\t' 'NR > 1 && $5 != 1' "$out/runs.tsv" | wc -l) rejected"
echo done >"$out/done"
