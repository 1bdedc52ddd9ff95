#!/bin/sh
# In-guest half of the benchmark runner (bench/run.sh boots the guest and
# calls this; tests/guest/t_bench_smoke.sh calls it in smoke mode).
#
#   bench/guest.sh OUTDIR
#
# Environment:
#   BENCH_CONFIGS    configurations to interleave (default "eevdf ext saakm"):
#                      eevdf   SCHED_NORMAL (policies and ext_fifo loaded)
#                      ext     SCHED_EXT under build/bench/ext_fifo
#                      saakm   SCHED_SAAKM under policies/fifo (saakm_fifo)
#                      nopol   SCHED_NORMAL with nothing loaded at all
#                      saakm1  saakm with saakm_fifo the only policy
#                      saakm8  saakm with 7 idle policies (bench/nullpol)
#                              registered before saakm_fifo
#                      saakmrec  saakm, with saakm_fifo recorded (records
#                              into a tracefs instance, as saakm record does)
#   BENCH_WORKLOADS  workloads (default: all of them, see wl_cmd below)
#   BENCH_REPS       repetitions (default 5)
#   BENCH_SIZE       full | smoke (tiny sizes, no warm-up run)
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
	[ -z "${ext_pid:-}" ] || { kill -INT "$ext_pid"; wait "$ext_pid"; }
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
		*) return 1 ;;
		esac
	fi
}

class_of() {
	case $1 in
	eevdf | nopol) echo eevdf ;;
	ext) echo ext ;;
	saakm | saakm1 | saakm8 | saakmrec) echo saakm:fifo ;;
	*) return 1 ;;
	esac
}

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

for w in $workloads; do wl_cmd "$w" >/dev/null || fail "unknown workload $w"; done
for c in $configs; do class_of "$c" >/dev/null || fail "unknown configuration $c"; done
[ -x "$B/schedrun" ] || fail "$B/schedrun missing (make bench-progs)"
case " $workloads " in *" 7zip "*)
	seq 1 400000 >"$work/seq.txt"; seq 1 20000 >"$work/seq-small.txt" ;;
esac
case " $workloads " in *" pipe "* | *" pipe_1cpu "* | *" messaging "*)
	perf bench sched pipe -l 10 >/dev/null 2>&1 || fail "perf bench does not run in this guest" ;;
esac

# --- schedulers ---------------------------------------------------------------
fifo_ko=${BENCH_FIFO_KO:-$root/policies/fifo/saakm_fifo.ko}
null_ko=${BENCH_NULL_KO:-$root/bench/nullpol/saakm_nullpol.ko}
ext_pid=
# /proc/saakm is read through the saakm CLI (libsaakm's parser)
saakm_cli=$root/build/tools/saakm
has_policy() { "$saakm_cli" get policies "$1" id >/dev/null 2>&1; }
nr_policies() { _n=$("$saakm_cli" list 2>/dev/null | grep -c '^[0-9]'); echo "${_n:-0}"; }
fifo_was_loaded=
has_policy fifo && fifo_was_loaded=1
load_fifo() {
	has_policy fifo && return 0
	insmod "$fifo_ko" || fail "insmod $fifo_ko"
}
# set_policies N: saakm_fifo loaded, with N-1 idle policies registered before it
set_policies() {
	if [ "$1" -gt 1 ] && ! has_policy null0; then
		rmmod saakm_fifo 2>/dev/null
		insmod "$null_ko" count=$(($1 - 1)) || fail "insmod $null_ko"
	elif [ "$1" -le 1 ] && has_policy null0; then
		rmmod saakm_nullpol || fail "rmmod saakm_nullpol"
	fi
	load_fifo
}
# The recorder, for saakmrec: saakm_fifo's records go to a tracefs instance
# (64 MiB per CPU), as `saakm record` sets it up; rec_stop appends the
# number of records kept and lost to the run's output.
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
	"$saakm_cli" get policies fifo id >/sys/kernel/saakm/record || fail "cannot record fifo"
}
rec_stop() { # run output file
	echo 0 >/sys/kernel/saakm/record
	echo 0 >"$inst/events/saakm/saakm_record/enable"
	lost=$(cat "$inst"/per_cpu/cpu*/stats | awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }')
	echo "records=$(grep -c 'saakm_record:' "$inst/trace") lost=$lost" >>"$1"
	rmdir "$inst"
}

ext_state() { cat /sys/kernel/sched_ext/state 2>/dev/null; }
ext_ops() { cat /sys/kernel/sched_ext/root/ops 2>/dev/null; }

if has saakm || has saakm1 || has saakm8 || has saakmrec || has eevdf || has ext; then
	load_fifo
	say "loaded saakm_fifo: $("$saakm_cli" list | tr '\n' ';')"
fi
if has ext || has eevdf; then
	"$B/ext_fifo" >"$out/ext_fifo.log" 2>&1 &
	ext_pid=$!
	i=0
	until [ "$(ext_state)" = enabled ]; do
		i=$((i + 1))
		[ $i -gt 600 ] && fail "ext_fifo did not enable: $(cat "$out/ext_fifo.log")"
		kill -0 "$ext_pid" 2>/dev/null || fail "ext_fifo exited: $(cat "$out/ext_fifo.log")"
		sleep 0.05
	done
	say "sched_ext: $(ext_state), ops $(ext_ops)"
fi
if has nopol; then
	[ -z "$ext_pid" ] || fail "nopol cannot be mixed with ext/saakm configurations"
	[ "$(nr_policies)" -eq 0 ] || fail "nopol: a SaaKM policy is loaded"
fi

# --- runs ---------------------------------------------------------------------
printf 'workload\tconfig\trep\tstatus\tvalid\n' >"$out/runs.tsv"
run_one() { # workload config rep
	w=$1 c=$2 r=$3
	valid=1
	case $c in
	saakm1) set_policies 1 ;;
	saakm8) set_policies 8 ;;
	esac
	if [ "$c" = ext ] && { [ "$(ext_state)" != enabled ] || [ "$(ext_ops)" != ext_fifo ]; }; then
		say "ext_fifo is not the enabled sched_ext scheduler ($(ext_state) $(ext_ops))"
		valid=0
	fi
	f=$out/raw/$w.$c.$r.out
	[ "$c" = saakmrec ] && rec_start
	# output to tmpfs first: a write over 9p would stall the run (and under
	# icount, warp the guest clock)
	(cd "$work" && "$B/schedrun" -o "$work/check" -l "$w/$c/$r" "$(class_of "$c")" -- $(wl_cmd "$w")) >"$work/run.out" 2>&1
	st=$?
	cp "$work/run.out" "$f"
	[ "$c" = saakmrec ] && rec_stop "$f"
	cat "$work/check" >>"$out/checks.txt"
	rm -f "$work/check" "$work/o.7z"
	grep -q '^schedrun: .* ok=1 ' "$f" || valid=0
	[ "$st" -eq 0 ] || valid=0
	case $c in saakm8) [ "$(nr_policies)" -eq 8 ] || valid=0 ;; saakm1) [ "$(nr_policies)" -eq 1 ] || valid=0 ;; esac
	echo "policies=$(nr_policies)" >>"$f"
	printf '%s\t%s\t%s\t%s\t%s\n' "$w" "$c" "$r" "$st" "$valid" >>"$out/runs.tsv"
	[ "$valid" = 1 ] || say "REJECTED $w/$c/$r (status $st): $(grep '^schedrun:' "$f" | tail -1)"
}

if [ "$size" != smoke ]; then
	for w in $workloads; do
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

if [ -n "$ext_pid" ]; then
	kill -INT "$ext_pid"
	wait "$ext_pid"
fi
has_policy null0 && rmmod saakm_nullpol
# leave the guest as we found it (the smoke test runs inside the test suite)
[ -n "$fifo_was_loaded" ] || ! has_policy fifo || rmmod saakm_fifo
echo "guest_seconds=$(( $(date +%s) - t0 ))" >>"$out/env.txt"
say "all runs done; $(awk -F'\t' 'NR > 1 && $5 != 1' "$out/runs.tsv" | wc -l) rejected"
echo done >"$out/done"
