#!/bin/sh
# Benchmark smoke run (bench/guest.sh, one tiny repetition): each workload runs
# under EEVDF, the sched_ext twin (ext_fifo) and SaaKM FIFO, and every run's
# tasks are checked to be in the intended class, so `make bench` can never
# silently measure the wrong scheduler. make test runs hackbench (processes)
# and wakelat, make test-full every workload of the smoke set.
# saakm-test: timeout=300
# saakm-test: normal-only
. "$(dirname "$0")/lib.sh"

B=$SAAKM_ROOT/build/bench
bench_setup bench-smoke
wl="hackbench_proc wakelat"
if [ "${SAAKM_FULL:-0}" = 1 ]; then
	wl="$wl hackbench_thr"
	if command -v perf >/dev/null 2>&1 && perf bench sched pipe -l 10 >/dev/null 2>&1; then
		wl="$wl pipe"
	else
		skip "perf bench sched pipe" "perf missing or not working in the guest (make bench-setup)"
	fi
fi
configs="eevdf ext saakm"
if BENCH_SIZE=smoke BENCH_REPS=1 BENCH_CONFIGS="$configs" BENCH_WORKLOADS="$wl" \
	sh "$SAAKM_ROOT/bench/guest.sh" "$out" >"$out.log" 2>&1; then
	ok "bench/guest.sh smoke run completed"
else
	sed 's/^/# /' "$out.log" | tail -20
	not_ok "bench/guest.sh smoke run completed" "$(cat "$out/error" 2>/dev/null)"
fi
for w in $wl; do
	for c in $configs; do
		line=$(awk -F'\t' -v w="$w" -v c="$c" '$1 == w && $2 == c' "$out/runs.tsv" 2>/dev/null)
		chk=$(grep -h "label=$w/$c/1 " "$out/checks.txt" 2>/dev/null | tail -1)
		want=$(case $c in eevdf) echo 0 ;; ext) echo 7 ;; saakm) echo 8 ;; esac)
		if [ -z "$line" ]; then
			not_ok "$w under $c" "did not run"
		elif [ "$(echo "$line" | cut -f5)" = 1 ] && echo "$chk" | grep -q " want=$want ok=1 .* bad=0 "; then
			ok "$w under $c: class $want verified ($(echo "$chk" | sed 's/.*\(samples=[0-9]* threads=[0-9]*\).*/\1/'))"
		else
			grep -h '^schedrun:\|rror' "$out/raw/$w.$c.1.out" 2>/dev/null | sed 's/^/# /'
			not_ok "$w under $c" "rejected: ${chk:-no class check}"
		fi
	done
done
# wakelat reports the class its own threads saw, independently of schedrun
for c in ext saakm; do
	want=$(case $c in ext) echo 7 ;; saakm) echo 8 ;; esac)
	if grep -q "policies=$want\$" "$out/raw/wakelat.$c.1.out" 2>/dev/null; then
		ok "wakelat threads under $c saw sched_getscheduler() = $want"
	else
		not_ok "wakelat threads under $c saw sched_getscheduler() = $want" \
			"$(grep -o 'policies=.*' "$out/raw/wakelat.$c.1.out" 2>/dev/null)"
	fi
done
# ...and the check really rejects: with ext_fifo gone, a SCHED_EXT task is
# accepted by the kernel but runs on EEVDF (ext.enabled 0)
if [ "$(cat /sys/kernel/sched_ext/state 2>/dev/null)" = disabled ]; then
	"$B/schedrun" -l negative ext -- sleep 0.1 >"$out/negative.out" 2>&1
	st=$?
	if [ "$st" = 3 ] && grep -q ' ok=0 ' "$out/negative.out"; then
		ok "schedrun rejects a SCHED_EXT run with no sched_ext scheduler loaded"
	else
		sed 's/^/# /' "$out/negative.out"
		not_ok "schedrun rejects a SCHED_EXT run with no sched_ext scheduler loaded" "status $st"
	fi
else
	skip "schedrun negative check" "a sched_ext scheduler is still loaded"
fi
done_testing
