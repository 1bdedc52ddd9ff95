#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# upgrade.sh: how long a live upgrade stops a policy, and how long a switch
# of all its tasks to another policy takes, as the CPU count and the number
# of attached tasks grow. One icount guest per vCPU count (guest time counts
# instructions, so host load does not stretch it).
#
# In each guest the test policy upfifo (tests/modules/saakm_upfifo) runs a
# "holders" process of N tasks (bench/holders.c: 2 per CPU spin, so that
# runqueues hold READY tasks; the rest block), and 'saakm upgrade' replaces
# it ROUNDS times, back and forth between its two versions. Each upgrade's
# blackout is the time the class kept every CPU stopped, as the kernel
# measured it (upgrade_ns= in /proc/saakm/policies): no CPU runs a task of
# the policy, or any task, meanwhile; swap_ns= is the part of it that the
# swap itself took on one CPU (export, import, core_entry). Then 'saakm switch upfifo fifo' and
# back, timed in the guest: the switch stops no CPU, but each task in turn.
#
#   usage: bench/upgrade.sh [--cpus "2 8"] [--tasks "10 1000 10000"]
#                           [--rounds 20] [--out DIR] [--timeout SECS]
#
# Results: build/bench/upgrade-<time>/ (results.md, raw.tsv, n<N>/guest.log).
# Inside a guest this script runs itself as
# `bench/upgrade.sh --guest TASKS ROUNDS OUT`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# --- in the guest ---------------------------------------------------------------
guest() {
	local tasks=$1 rounds=$2 out=$3 n cpus saakm=$root/build/tools/saakm
	local ko=$root/tests/modules/saakm_upfifo fifo=$root/policies/fifo/saakm_fifo.ko
	cpus=$(nproc)
	exec >>"$out/guest.log" 2>&1
	export PATH=$PATH:/usr/sbin:/sbin
	say() { echo "bench-upgrade: $*"; }
	now_ns() { date +%s%N; }
	other() {
		[ "$("$saakm" get policies upfifo module)" = saakm_upfifo1 ] &&
			echo "$ko/saakm_upfifo2.ko" || echo "$ko/saakm_upfifo1.ko"
	}
	insmod "$ko/saakm_upfifo1.ko"
	insmod "$fifo"
	for n in $tasks; do
		local spin=$((2 * cpus)) t0 t1 r ctl=/tmp/holders.ctl
		[ "$spin" -lt "$n" ] || spin=$((n - 1))
		rm -f "$ctl" && mkfifo "$ctl"
		"$saakm" run -p upfifo -- "$root/build/bench/holders" "$n" "$spin" <"$ctl" >/tmp/holders.out &
		exec 3>"$ctl"
		t0=$(now_ns)
		until grep -q ready /tmp/holders.out 2>/dev/null; do sleep 0.2; done
		say "$n tasks up in $(( ($(now_ns) - t0) / 1000000 )) ms; upfifo has $("$saakm" get policies upfifo tasks)"
		for r in $(seq "$rounds"); do
			"$saakm" upgrade "$(other)" >/tmp/up.out || { cat /tmp/up.out; exit 1; }
			printf 'upgrade\t%s\t%s\t%s\t%s\t%s\n' "$cpus" "$n" "$r" \
				"$("$saakm" get policies upfifo upgrade_ns)" \
				"$("$saakm" get policies upfifo swap_ns)" >>"$out/raw.tsv"
		done
		for r in 1 2; do
			t0=$(now_ns)
			"$saakm" switch upfifo fifo >/tmp/sw.out || { cat /tmp/sw.out; exit 1; }
			t1=$(now_ns)
			printf 'switch\t%s\t%s\t%s\t%s\t-\n' "$cpus" "$n" "$r" $((t1 - t0)) >>"$out/raw.tsv"
			cat /tmp/sw.out
			"$saakm" switch fifo upfifo >/tmp/sw.out || { cat /tmp/sw.out; exit 1; }
		done
		exec 3>&-
		wait
		say "$n tasks: done"
	done
	say "ok"
}

if [ "${1:-}" = --guest ]; then
	guest "$2" "$3" "$4"
	exit 0
fi

# --- on the host ----------------------------------------------------------------
cpus_list="2 8"
tasks="10 1000 10000"
rounds=20
out=
timeout=3600
while [ $# -gt 0 ]; do
	case $1 in
	--cpus) cpus_list=$2; shift ;;
	--tasks) tasks=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--out) out=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	-h | --help) sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "upgrade.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
for f in build/tools/saakm build/bench/holders tests/modules/saakm_upfifo/saakm_upfifo1.ko \
	 tests/modules/saakm_upfifo/saakm_upfifo2.ko policies/fifo/saakm_fifo.ko; do
	[ -e "$f" ] || { echo "upgrade.sh: $f missing (make bench-upgrade builds it)" >&2; exit 1; }
done
out=${out:-build/bench/upgrade-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
: >"$out/raw.tsv"
for c in $cpus_list; do
	mkdir -p "$out/n$c"
	echo "bench-upgrade: $c vCPUs, tasks $tasks, $rounds upgrades each (icount guest; log: $out/n$c/guest.log)"
	t0=$SECONDS
	scripts/vm.sh --cpus "$c" --memory 3G --icount -t "$timeout" -w "$out" \
		-l "$out/n$c/console.log" \
		-e "bench/upgrade.sh --guest '$tasks' $rounds $out/n$c" ||
		{ echo "bench-upgrade: the $c-vCPU guest failed: $out/n$c/guest.log" >&2; exit 1; }
	cat "$out/n$c/raw.tsv" >>"$out/raw.tsv"
	echo "bench-upgrade: $c vCPUs done in $((SECONDS - t0)) s"
done
python3 bench/upgrade.py "$out/raw.tsv" | tee "$out/results.md"
