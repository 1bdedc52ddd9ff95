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
#   BENCH_EXT        resident (default): a configuration without a sched_ext
#                    scheduler runs with the study's resident one enabled,
#                    as in the SaaKM paper; own: a sched_ext scheduler is
#                    enabled only during its own configuration's runs
#   BENCH_MODDIR     directory with snapshots of the modules (bench/run.sh);
#                    a module not there is taken from the repository
#   BENCH_DISP_SECS, BENCH_DISP_LOADS, BENCH_DISP_ARGS  seconds per load
#                    point, the loads (fractions of capacity, comma-separated)
#                    and extra options of dispersive
#   BENCH_CALIB      1: bracket every run with the calibration workload
#                    (bench/calib, BENCH_CALIB_BIN) and rerun a run whose
#                    calibrations moved (bench/run.sh sets it in icount mode)
#   BENCH_CALIB_TOL  how far (%) a calibration may move (default 1.5)
#   BENCH_RERUNS     reruns of a perturbed run before it is kept as
#                    perturbed (default 2)
#   BENCH_WORK       working directory of the runs (default
#                    /dev/shm/saakm-bench: must be the guest's own tmpfs)
#   BENCH_TRACE_9P   1 (default: as BENCH_CALIB): every 9p request of every
#                    run, with the guest time it waited, in raw/<run>.9p.txt;
#                    a run whose timed phase is longer than its longest
#                    stretch without a 9p request is perturbed (rerun)
#
# Every run goes through build/bench/schedrun, which puts the workload in the
# configuration's class and samples the class of all its tasks; its verdict
# line is appended to OUTDIR/checks.txt and the run's output is
# OUTDIR/raw/<workload>.<config>.<rep>.out (the run's output, then the
# policies, sched_ext state and module parameters it ran with). OUTDIR/runs.tsv lists every run
# (workload config rep status valid attempt perturbed cal_before_ns
# cal_after_ns idle_ms irq_9p window_ms free_ms why: a perturbed attempt that
# was rerun keeps its output as raw/<workload>.<config>.<rep>.try<attempt>.out),
# OUTDIR/calib.tsv every calibration; OUTDIR/done is written last.
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
ext_mode=${BENCH_EXT:-resident}
table=${BENCH_CONFIG_TABLE:-$root/bench/configs}
all_wl="hackbench_proc hackbench_thr pipe pipe_1cpu messaging wakelat wakelat_1cpu 7zip stockfish ffmpeg"
last_cpu=$(($(nproc) - 1))
workloads=${BENCH_WORKLOADS:-$all_wl}
reps=${BENCH_REPS:-5}
size=${BENCH_SIZE:-full}
# The runs read and write only here. In a virtme-ng guest /tmp is an overlay
# whose lower layer is the host's /tmp over 9p, so a file created there is
# first looked up on the host: a 9p request in the middle of a timed run,
# answered in host real time while the guest clock jumps ahead (icount
# sleep=off), which couples the figures to the host's load
# (docs/benchmarks.md, "The runner's own reliability"). /dev/shm is a tmpfs
# of the guest's own, here and on bare metal.
work=${BENCH_WORK:-/dev/shm/saakm-bench}
mkdir -p "$work"
work_fs=$(stat -f -c %T "$work" 2>/dev/null)

say() { echo "bench: $*"; }
fail() {
	say "error: $*"
	echo "$*" >"$out/error"
	[ -z "${scx_pid:-}" ] || { kill -INT "$scx_pid"; wait "$scx_pid"; }
	feat_off
	knob_off
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
		wakelat_1cpu) echo "taskset -c $last_cpu $B/wakelat -m 2 -t 2 -n 100 -w 2000" ;;
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
		wakelat_1cpu) echo "taskset -c $last_cpu $B/wakelat -m 2 -t 2 -n 2000 -w 2000" ;;
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
	echo "ext_mode=$ext_mode"
	echo "workloads=$workloads"
	echo "saakm_class=$([ -d /proc/saakm ] && echo yes || echo no)"
	echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
	echo "work=$work"
	echo "work_fs=$work_fs"
} >"$out/env.txt"
say "guest $(uname -r), $(nproc) CPUs, size $size, $reps rep(s), configs: $configs"
[ "$work_fs" = tmpfs ] || say "warning: $work is on $work_fs, not tmpfs: runs may wait for the host"

[ -r "$table" ] || fail "no configuration table $table"
case $ext_mode in resident | own) ;; *) fail "BENCH_EXT=$ext_mode: resident or own" ;; esac
for w in $workloads; do wl_cmd "$w" >/dev/null || fail "unknown workload $w"; done
for c in $configs; do cfg "$c" || fail "unknown configuration $c (not in $table)"; done
[ -x "$B/schedrun" ] || fail "$B/schedrun missing (make bench-progs)"
# The project's programs run from the tmpfs: build/ is on the guest's 9p
# root, which keeps no page cache of a file nobody has open, so every exec
# of wakelat or dispersive would read its pages from the host again, on
# page faults inside its timed phase.
mkdir -p "$work/bin" || fail "cannot create $work/bin"
for _p in schedrun wakelat dispersive; do
	[ ! -x "$B/$_p" ] || cp "$B/$_p" "$work/bin/" || fail "cannot copy $B/$_p to $work/bin"
done
B=$work/bin
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
	_params=$c_modparams
	shared_module && _params=
	insmod "$ko_file" $_params || fail "insmod $ko_file $_params"
	has_policy "$c_policy" || fail "$c_mod loaded but no SaaKM policy named $c_policy"
	params_save
}
# Several configurations may share a module with different parameters
# (wfq and wfq_gran0). Such a module is loaded with its defaults;
# params_save keeps its writable parameters as loaded, and params_set
# writes them back before each run, then the configuration's own (through
# sysfs: a shared module's configurations can only set writable ones).
shared_module() {
	_n=0
	for _c in $configs; do
		_l=$(awk -v n="$_c" '$1 !~ /^#/ && $1 == n { print $3; exit }' "$table")
		[ "${_l%%:*}" = "$c_mod" ] && _n=$((_n + 1))
	done
	[ "$_n" -gt 1 ]
}
params_dir() { echo "/sys/module/$(basename "$c_mod" .ko)/parameters"; }
params_save() {
	_f=$work/params.$(basename "$c_mod" .ko)
	[ -f "$_f" ] && return 0
	: >"$_f"
	for _p in "$(params_dir)"/*; do
		# the mode, not test -w: root may open a 0444 parameter, which
		# then refuses the write
		[ $((0$(stat -c %a "$_p") & 0200)) -ne 0 ] && echo "$(basename "$_p")=$(cat "$_p")" >>"$_f"
	done
}
# feat_on NAME: set a scheduler feature (the feat= flag), if any, until
# feat_off, which fail() also calls: a failed run leaves the feature as it was
feat_undo=
feat_on() {
	[ -n "$1" ] || return 0
	[ -w "$sched_features" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	# already so: nothing to set, nothing to undo
	grep -qw -- "$1" "$sched_features" 2>/dev/null && return 0
	echo "$1" >"$sched_features" || fail "$c: cannot set scheduler feature $1 ($sched_features)"
	feat_undo=$(echo "$1" | sed 's/^NO_//;t;s/^/NO_/')
}
feat_off() {
	[ -n "$feat_undo" ] || return 0
	echo "$feat_undo" >"$sched_features"
	feat_undo=
}
sched_features=/sys/kernel/debug/sched/features
# knob_on NAME:VALUE: set a class switch, /sys/kernel/saakm/NAME (the knob=
# flag), if any, until knob_off, which fail() also calls
knob_undo=
knob_on() {
	[ -n "$1" ] || return 0
	_k=/sys/kernel/saakm/${1%%:*}
	[ -w "$_k" ] || fail "$c: no class switch $_k"
	knob_undo="$_k $(cat "$_k")"
	echo "${1#*:}" >"$_k" || fail "$c: cannot write ${1#*:} to $_k"
}
knob_off() {
	[ -n "$knob_undo" ] || return 0
	echo "${knob_undo#* }" >"${knob_undo%% *}"
	knob_undo=
}
# params_now: the current configuration's module parameters, name=value,...
params_now() {
	for _p in "$(params_dir)"/*; do printf '%s=%s,' "$(basename "$_p")" "$(cat "$_p")"; done | sed 's/,$//'
}
params_set() {
	[ -n "$c_mod" ] || return 0
	_f=$work/params.$(basename "$c_mod" .ko)
	[ -f "$_f" ] || params_save
	for _kv in $(cat "$_f") $(shared_module && echo "$c_modparams"); do
		echo "${_kv#*=}" >"$(params_dir)/${_kv%%=*}" ||
			fail "$c: cannot set ${_kv%%=*}=${_kv#*=} ($(params_dir))"
	done
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
# The recorder, for the record flag: the kernel keeps the policy's records
# in arrays of 64 MiB per CPU, as `saakm record -b 65536` sizes them;
# rec_stop appends the number of records kept and dropped to the run's
# output (from the struct saakm_rec_buf_info that starts
# /proc/saakm/record_buf: u64 nr_records at byte 24, dropped at 32) and
# frees the arrays.
recbuf=/proc/saakm/record_buf
rec_start() {
	echo 65536 >"$recbuf" || fail "cannot size $recbuf"
	"$saakm_cli" get policies "$c_policy" id >/sys/kernel/saakm/record || fail "cannot record $c_policy"
}
rec_stop() { # run output file
	echo 0 >/sys/kernel/saakm/record
	set -- "$1" $(head -c 40 "$recbuf" | od -An -t u8 -j 24 -N 16)
	echo "records=${2:-?} lost=${3:-?}" >>"$1"
	echo 0 >"$recbuf"
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
# configurations, enabled under the configurations that have none (none
# with BENCH_EXT=own: they run with sched_ext disabled).
res_bin= res_args= res_ops=
[ "$ext_mode" = own ] || for c in $configs; do
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
	elif flag nothing || [ "$ext_mode" = own ]; then
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
	elif flag nothing || [ "$ext_mode" = own ]; then
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

# --- what a run was exposed to -------------------------------------------------
# A run's figures can depend on the host only through waits for the host: in
# icount mode with sleep=off the guest clock jumps to the next timer whenever
# every vCPU is idle, so a run that waits for a 9p request gains guest time
# in proportion to the host's real time. Recorded per run: idle_ms, the
# smallest idle time of any CPU during the run (an upper bound of the time
# all were idle, the only time the clock can jump), and irq_9p, the
# interrupts of the 9p devices (requests to the host, including the exec of
# the workload before its own timer starts).
p9_devs=" $(ls /sys/bus/virtio/drivers/9pnet_virtio 2>/dev/null | grep '^virtio' | tr '\n' ' ')"
idle_snap() { awk '/^cpu[0-9]/ { printf "%s ", $5 }' /proc/stat; }
idle_min_ms() { # BEFORE AFTER (idle_snap outputs, USER_HZ ticks)
	echo "$1|$2" | awk -F'|' -v hz="$(getconf CLK_TCK)" '{
		n = split($1, a, " "); split($2, b, " "); m = -1
		for (i = 1; i <= n; i++) { d = b[i] - a[i]; if (m < 0 || d < m) m = d }
		printf "%d", m * 1000 / hz }'
}
irq_9p() {
	awk -v devs="$p9_devs" 'NR > 1 {
		name = $NF; sub(/-.*/, "", name)
		if (!index(devs, " " name " ")) next
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i
	} END { print s + 0 }' /proc/interrupts
}

# BENCH_TRACE_9P=1: the 9p requests of each run from the 9p_client_req/res
# tracepoints (a tracefs instance of its own), between two markers written
# just before and after the run. t9_stop FILE writes one line per request
# (guest seconds, guest microseconds until its response, task, request
# type), per task the count and the total wait, and free_ms: the longest
# stretch of the run without a 9p request in flight. A timed phase longer
# than that cannot have been free of waits for the host.
trace_9p=${BENCH_TRACE_9P:-${BENCH_CALIB:-0}}
t9=/sys/kernel/tracing/instances/saakm-9p
t9_start() {
	[ "$trace_9p" = 1 ] || return 0
	[ -d /sys/kernel/tracing/instances ] || mount -t tracefs nodev /sys/kernel/tracing || fail "cannot mount tracefs"
	[ -d "$t9" ] || mkdir "$t9" || fail "cannot create $t9"
	echo mono >"$t9/trace_clock"
	echo 1 >"$t9/events/9p/9p_client_req/enable" && echo 1 >"$t9/events/9p/9p_client_res/enable" ||
		fail "no 9p tracepoints in this kernel"
}
t9_stop() {
	[ "$trace_9p" = 1 ] || return 0
	echo 0 >"$t9/events/9p/9p_client_req/enable"
	echo 0 >"$t9/events/9p/9p_client_res/enable"
	awk '
	# a request or response: its timestamp, task and fields
	function parse(k) {
		split(substr($0, 1, k), pre, " "); ts = pre[length(pre)]; sub(/:$/, "", ts)
		ts += 0	# a number: "99.9" > "100.1" as strings
		task = pre[1]; split(substr($0, k + 1), f, " ")
	}
	/tracing_mark_write: saakm-bench start/ { parse(index($0, " tracing_mark_write")); start = ts; busy_to = ts; next }
	/tracing_mark_write: saakm-bench end/ {
		parse(index($0, " tracing_mark_write")); stop = ts
		if (inflight <= 0 && ts - busy_to > free) free = ts - busy_to
		next
	}
	{
		k = index($0, " 9p_client_"); if (!k) next
		parse(k)
		# f: 9p_client_req: client C request TYPE tag T
		key = f[3] "/" f[7]
		if (f[1] == "9p_client_req:") {
			t0[key] = ts; who[key] = task; what[key] = f[5]
			if (start != "" && stop == "" && inflight <= 0 && ts - busy_to > free) free = ts - busy_to
			inflight++
		} else if (key in t0) {
			w = (ts - t0[key]) * 1e6
			printf "%.6f %.0f %s %s\n", t0[key], w, who[key], what[key]
			cnt[who[key]]++; sum[who[key]] += w; delete t0[key]
			if (--inflight <= 0 && ts > busy_to) busy_to = ts
		}
	} END {
		for (t in cnt) printf "# %s requests=%d wait_us=%.0f\n", t, cnt[t], sum[t]
		printf "# free_ms=%d\n", free * 1000
	}' "$t9/trace" >"$1"
	rmdir "$t9"
}

# window_ms WORKLOAD FILE: how long the workload's own timer ran (ms), from
# its output, empty if it does not say (dispersive: many load points)
window_ms() {
	case $1 in
	hackbench_*) sed -n 's/^Time: *\([0-9.]*\).*/\1/p' "$2" ;;
	pipe | pipe_1cpu | messaging) sed -n 's/.*Total time: *\([0-9.]*\) \[sec\].*/\1/p' "$2" ;;
	7zip) sed -n 's/^Global *Time *= *\([0-9.]*\).*/\1/p' "$2" ;;
	ffmpeg) sed -n 's/.*rtime=\([0-9.]*\)s.*/\1/p' "$2" ;;
	stockfish) sed -n 's/^Total time (ms) *: *\([0-9]*\).*/\1/p' "$2" | awk '{ print $1 / 1000 }' ;;
	wakelat*) sed -n 's/.*rounds_per_s=\([0-9.]*\).*/\1/p' "$2" |
		awk -v n="$(wl_cmd "$1" | sed 's/.* -n \([0-9]*\).*/\1/')" '$1 > 0 { print n / $1 }' ;;
	esac | tail -1 | awk 'NF { printf "%d\n", $1 * 1000 + 0.5 }'
}

# --- calibration ----------------------------------------------------------------
# BENCH_CALIB=1: bench/calib (a fixed CPU loop on every CPU, no I/O) runs
# under EEVDF before and after every run, in the run's own scheduler state.
# Its guest time is a constant of the guest; a run is perturbed when one of
# its two calibrations differs from the median of that configuration's
# calibrations, or from each other, by more than BENCH_CALIB_TOL %. A
# perturbed run is run again, at most BENCH_RERUNS times.
calib_on=${BENCH_CALIB:-0}
# 1.5%: on a quiet host the calibration is bimodal, two values 0.67% apart
# (max deviation from the median 0.74% over 60, build/bench/rel-quiet:
# guest-internal, not host-driven); one tick of guest clock jump inside it
# (4 ms of its 164 ms) would be 2.4%
calib_tol=${BENCH_CALIB_TOL:-1.5}
reruns=${BENCH_RERUNS:-2}
if [ "$calib_on" = 1 ]; then
	_cb=${BENCH_CALIB_BIN:-$B/calib}
	[ -x "$_cb" ] || fail "calibration workload $_cb missing (bench/run.sh builds it)"
	# from tmpfs: its exec then asks nothing of the host
	cp "$_cb" "$work/calib" || fail "cannot copy $_cb to $work"
	printf 'seq\tconfig\telapsed_ns\n' >"$out/calib.tsv"
fi
cal_seq=0 cal_hist=
# calibrate CONFIG: one calibration, its guest ns in cal_ns ("-" if off)
calibrate() {
	cal_ns=-
	[ "$calib_on" = 1 ] || return 0
	cal_seq=$((cal_seq + 1))
	(cd "$work" && "$B/schedrun" -l "calib/$cal_seq" eevdf -- "$work/calib") >"$work/cal.out" 2>&1
	cal_ns=$(sed -n 's/^calib: .* elapsed_ns=\([0-9]*\) .*/\1/p' "$work/cal.out")
	[ -n "$cal_ns" ] || fail "calibration printed nothing: $(tail -3 "$work/cal.out")"
	[ "$cal_seq" -gt 1 ] || echo "calibration=$(sed -n 's/^calib: \(threads=[0-9]* iterations=[0-9]*\) .*/\1/p' "$work/cal.out") tolerance_pct=$calib_tol reruns=$reruns" >>"$out/env.txt"
	cal_hist="$cal_hist $1:$cal_ns"
	printf '%s\t%s\t%s\n' "$cal_seq" "$1" "$cal_ns" >>"$out/calib.tsv"
}
# moved CONFIG BEFORE AFTER: true if either calibration is more than the
# tolerance away from the median of CONFIG's calibrations, or from the other
moved() {
	[ "$calib_on" = 1 ] || return 1
	echo "$cal_hist" | tr ' ' '\n' | awk -F: -v c="$1" -v x="$2" -v y="$3" -v tol="$calib_tol" '
		$1 == c { v[n++] = $2 }
		END {
			# the median of the calibrations of this configuration so far
			for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			med = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
			bad = 0
			if (x - med > med * tol / 100 || med - x > med * tol / 100) bad = 1
			if (y - med > med * tol / 100 || med - y > med * tol / 100) bad = 1
			if (x - y > y * tol / 100 || y - x > y * tol / 100) bad = 1
			exit !bad
		}'
}

# --- runs ---------------------------------------------------------------------
printf 'workload\tconfig\trep\tstatus\tvalid\tattempt\tperturbed\tcal_before_ns\tcal_after_ns\tidle_ms\tirq_9p\twindow_ms\tfree_ms\twhy\n' >"$out/runs.tsv"
run_one() { # workload config rep attempt; sets perturbed
	w=$1 c=$2 r=$3 a=$4
	valid=1 perturbed=0
	cfg "$c"
	n=$(flag_value policies)
	[ -z "$n" ] || set_policies "$n"
	params_set
	feat_on "$(flag_value feat)"
	knob_on "$(flag_value knob)"
	scx_for
	if ! scx_ok; then
		say "$c: wrong sched_ext state before the run ($(ext_state) $(ext_ops) switch_all $(ext_all))"
		valid=0
	fi
	f=$out/raw/$w.$c.$r.out
	calibrate "$c"
	cal_before=$cal_ns
	flag record && rec_start
	t9_start
	i0=$(idle_snap) q0=$(irq_9p)
	[ "$trace_9p" != 1 ] || echo "saakm-bench start" >"$t9/trace_marker"
	# output to tmpfs first: a write over 9p would stall the run (and under
	# icount, warp the guest clock)
	(cd "$work" && "$B/schedrun" -o "$work/check" -l "$w/$c/$r" $(wl_opts "$w") "$c_class" -- $(wl_cmd "$w")) >"$work/run.out" 2>&1
	st=$?
	[ "$trace_9p" != 1 ] || echo "saakm-bench end" >"$t9/trace_marker"
	q1=$(irq_9p) i1=$(idle_snap)
	t9_stop "$work/run.9p"
	win=$(window_ms "$w" "$work/run.out") free=-
	[ "$trace_9p" != 1 ] || free=$(sed -n 's/^# free_ms=//p' "$work/run.9p")
	flag record && rec_stop "$work/run.out"
	calibrate "$c"
	cal_after=$cal_ns
	# the feature as it was in effect, then back
	[ -z "$(flag_value feat)" ] || echo "sched_feature=$(grep -ow -- "$(flag_value feat)" "$sched_features")" >>"$work/run.out"
	feat_off
	# the class switch as it was in effect, then back
	[ -z "$(flag_value knob)" ] || echo "knob=${knob_undo%% *}=$(cat "${knob_undo%% *}")" >>"$work/run.out"
	knob_off
	cp "$work/run.out" "$f"
	[ "$trace_9p" != 1 ] || cp "$work/run.9p" "${f%.out}.9p.txt"
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
	[ -z "$c_mod" ] || echo "params=$(params_now)" >>"$f"
	why=
	! moved "$c" "$cal_before" "$cal_after" || why=calibration
	# 2 ms: the printed metric and free_ms are rounded to the ms; one wait
	# for the host inside the timed phase costs a tick (4 ms) or more
	[ -z "$win" ] || [ "$free" = - ] || [ "$win" -le $((free + 2)) ] || why=${why:+$why,}9p
	[ -z "$why" ] || perturbed=1
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$c" "$r" "$st" "$valid" "$a" "$perturbed" \
		"$cal_before" "$cal_after" "$(idle_min_ms "$i0" "$i1")" "$((q1 - q0))" "${win:--}" "$free" "${why:--}" >>"$out/runs.tsv"
	[ "$valid" = 1 ] || say "REJECTED $w/$c/$r (status $st): $(grep '^schedrun:' "$f" | tail -1)"
	[ "$perturbed" = 0 ] || say "PERTURBED $w/$c/$r attempt $a ($why): calibration $cal_before -> $cal_after ns, timed ${win:-?} ms, longest stretch without 9p $free ms"
}
# run WORKLOAD CONFIG REP: run_one, again while perturbed (at most
# BENCH_RERUNS more times); a superseded attempt's output is kept aside
run() {
	_a=1
	while :; do
		run_one "$1" "$2" "$3" "$_a"
		[ "$perturbed" = 1 ] && [ "$_a" -le "$reruns" ] || break
		mv "$out/raw/$1.$2.$3.out" "$out/raw/$1.$2.$3.try$_a.out"
		[ "$trace_9p" != 1 ] || mv "$out/raw/$1.$2.$3.9p.txt" "$out/raw/$1.$2.$3.try$_a.9p.txt"
		_a=$((_a + 1))
	done
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
		for c in "$@"; do run "$w" "$c" "$r"; done
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
