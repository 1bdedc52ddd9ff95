#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cpus.sh: the cost of the scheduling classes as the CPU count grows, in
# guest-kernel instructions per operation (icount and the kprof profiler,
# bench/kprof.sh). For each vCPU count, one kprof guest runs, under EEVDF,
# SaaKM fifo (policies/fifo/saakm_fifo.ko, tasks moved with schedrun) and
# its sched_ext twin ext_fifo (enabled only during its own runs):
#   pingpong   ROUNDS round trips, both ends pinned to CPU 0: instructions
#              in the loop's window per round trip;
#   hackbench  hackbench -g 2 -l LOOPS between two marks: instructions in
#              the window per context switch (/proc/stat ctxt, before and
#              after the window).
# Then bench/cpus.py prints a table (rows: workload and configuration,
# columns: vCPU counts, and the change from the fewest to the most) and, for
# SaaKM fifo, the kernel functions whose instructions per operation grew
# most. `make bench-cpus` builds what it needs first.
#
#   usage: bench/cpus.sh [--cpus "2 4 8 16"] [--rounds 20000] [--loops 200]
#                        [--top 15] [--out DIR] [--timeout SECS]
#
# Results: build/bench/cpus-<time>/ (results.md, results.json; n<N>/ is the
# guest of N vCPUs: its profile, ops.tsv, each run's output and guest.log).
# The kernel, the module and the programs are copied there first (snap/),
# so the tree may be rebuilt while it runs. Inside a guest this script runs
# itself as `bench/cpus.sh --guest ROUNDS LOOPS SNAP`.
set -euo pipefail
cd "$(dirname "$0")/.."

# --- in the guest ---------------------------------------------------------------
# The measured windows leave out what a kprof-mark would add to the next one
# (it reads /proc/kallsyms, millions of instructions, after closing its
# window): the modules' symbols are noted between windows, by note_symbols.
guest() {
	local rounds=$1 loops=$2 snap=$3 n work=/dev/shm/saakm-cpus ext_pid=
	n=$(nproc)
	exec >>"$KPROF_OUT/guest.log" 2>&1
	export PATH=$PATH:/usr/sbin:/sbin
	say() { echo "bench-cpus: $*"; }
	# mark NAME: end the kprof window NAME here
	mark() { echo "$1" >>"$KPROF_OUT/marks"; hostname "kprof-$1"; }
	note_symbols() { grep '\[' /proc/kallsyms >>"$KPROF_OUT/kallsyms-modules" || true; }
	ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }
	ext_up() {
		[ "$(cat /sys/kernel/sched_ext/state 2>/dev/null)" = enabled ] &&
			[ "$(cat /sys/kernel/sched_ext/root/ops 2>/dev/null)" = ext_fifo ]
	}
	# measure CONFIG CLASS WORKLOAD: one window, its operations in ops.tsv
	measure() {
		local win=$1-$3-${n}cpu c0 ops st=0
		case $3 in
		pingpong)
			"$work/schedrun" "$2" -- "$work/pingpong" "$rounds" 0 0 "$win" >"$work/run.out" 2>&1 || st=$?
			ops=$rounds ;;
		hackbench)
			c0=$(ctxt)
			mark "$win-setup"
			"$work/schedrun" "$2" -- "$work/hackbench" -g 2 -l "$loops" >"$work/run.out" 2>&1 || st=$?
			mark "$win"
			ops=$(($(ctxt) - c0)) ;;
		esac
		cp "$work/run.out" "$KPROF_OUT/$win.out"
		if [ "$st" -ne 0 ] || ! grep -q '^schedrun: .* ok=1 ' "$work/run.out"; then
			say "$win failed (status $st): $(tail -3 "$work/run.out")"
			exit 1
		fi
		printf '%s\t%s\t%s\t%s\n' "$win" "$1" "$3" "$ops" >>"$KPROF_OUT/ops.tsv"
		say "$win: $ops operations"
	}

	say "$(uname -r), $n CPUs"
	# the programs run from the guest's tmpfs: no 9p reads inside a window
	mkdir -p "$work"
	cp "$snap/schedrun" "$snap/pingpong" "$snap/ext_fifo" "$(command -v hackbench)" "$work/"
	printf 'window\tconfig\tworkload\tops\n' >"$KPROF_OUT/ops.tsv"
	# warm-up, in no measured window
	"$work/pingpong" 2000 0 0 >/dev/null
	"$work/hackbench" -g 2 -l "$loops" >/dev/null

	measure eevdf eevdf pingpong
	measure eevdf eevdf hackbench

	insmod "$snap/saakm_fifo.ko"
	measure saakm-fifo saakm:fifo pingpong
	measure saakm-fifo saakm:fifo hackbench
	note_symbols
	rmmod saakm_fifo

	# as bench/guest.sh starts it: in the background, until SIGINT
	"$work/ext_fifo" >"$work/ext_fifo.log" 2>&1 &
	ext_pid=$!
	for _ in $(seq 600); do
		ext_up && break
		kill -0 "$ext_pid" 2>/dev/null || break
		sleep 0.05
	done
	if ! ext_up; then
		say "ext_fifo did not enable: $(tail -3 "$work/ext_fifo.log")"
		kill "$ext_pid" 2>/dev/null
		exit 1
	fi
	measure ext-fifo ext:ext_fifo pingpong
	measure ext-fifo ext:ext_fifo hackbench
	note_symbols
	kill -INT "$ext_pid"
	wait "$ext_pid" || true
	cp "$work/ext_fifo.log" "$KPROF_OUT/"
	: >"$KPROF_OUT/done"
}

if [ "${1:-}" = --guest ]; then
	shift
	guest "$@"
	exit
fi

# --- on the host ----------------------------------------------------------------
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
cpu_list="2 4 8 16" rounds=20000 loops=200 top=15 out=
export TIMEOUT=${TIMEOUT:-3600}
while [ $# -gt 0 ]; do
	case $1 in
	--cpus) cpu_list=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--loops) loops=$2; shift ;;
	--top) top=$2; shift ;;
	--out) out=$2; shift ;;
	--timeout) TIMEOUT=$2; shift ;;
	-h | --help) sed -n '4,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done
[ -n "$out" ] || out=$BUILD_DIR/bench/cpus-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
out=$(cd "$out" && pwd)

snap=$out/snap
snapshot_kernel "$KDIR" "$snap/kernel"
for f in policies/fifo/saakm_fifo.ko build/bench/schedrun build/bench/pingpong build/bench/ext_fifo; do
	cp "$f" "$snap/" || die "$f missing: run 'make bench-cpus'"
done
command -v hackbench >/dev/null || die "no hackbench: run 'make bench-setup'"

read -ra cpus <<<"$cpu_list"
i=0 failed=0
for n in "${cpus[@]}"; do
	i=$((i + 1)) d=$out/n$n t0=$SECONDS
	log "bench-cpus: $n vCPUs ($i of ${#cpus[@]})..."
	st=0
	rm -f "$d/done" "$d/ops.tsv" "$d/guest.log" "$d/kprof.json"
	bash bench/kprof.sh -k "$snap/kernel" -c "$n" -o "$d" \
		-e "bash bench/cpus.sh --guest $rounds $loops '$snap'" >"$out/n$n.log" 2>&1 || st=$?
	if [ ! -f "$d/done" ]; then
		log "bench-cpus: $n vCPUs: the guest did not finish (status $st): $(tail -2 "$out/n$n.log" | tr '\n' ' ')"
		[ ! -f "$d/guest.log" ] || tail -3 "$d/guest.log" | sed 's/^/  | /'
		failed=1
		continue
	fi
	# status 3: the console log has a kernel report; the windows still count
	[ "$st" -eq 0 ] || { log "bench-cpus: $n vCPUs: guest status $st, see $out/n$n.log"; failed=1; }
	python3 bench/kprof.py "$d" --windows "$(awk 'NR > 1 { print $1 }' "$d/ops.tsv" | paste -sd,)" \
		--json "$d/kprof.json" || { log "bench-cpus: $n vCPUs: bench/kprof.py failed"; failed=1; }
	log "bench-cpus: $n vCPUs done in $(fmt_secs $((SECONDS - t0)))"
done
python3 bench/cpus.py "$out" --cpus "$cpu_list" --top "$top"
log "bench-cpus: results in ${out#"$SAAKM_ROOT"/} (results.md, results.json)"
exit "$failed"
