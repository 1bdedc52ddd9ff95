#!/bin/bash
# Host test of 'saakm replay' (tools/replay/engine.c on libusim) without a
# kernel, against policies/fifo/saakm_fifo.c:
#  - the hand-made recording fixtures/record/fifo.trace (2 CPUs, calls of
#    the two CPUs interleaved) matches; one-line variants of fifo diverge
#    at the right record: LIFO picks (a STATE), another CPU choice (a RET),
#    a missing state change;
#  - fixtures/record/fifo-steal.trace (a recording without read_cpu
#    records): an unlocked read of another CPU's queue racing with that
#    CPU's schedule() replays as recorded, whether the read came before the
#    state change or after it;
#  - fixtures/record/fifo-read.trace: a read of another CPU's queue made
#    through saakm_read_cpu() is served from its INPUT record, even where
#    no order of the records gives the value (fifo reading the queue
#    itself diverges there); a read of another CPU than recorded diverges;
#    fixtures/record/shinjuku-lock.trace: a call that takes a policy lock
#    waits for its turn before taking it, not while holding it;
#  - a recording with a gap: exit 3 if all before it matches, 1 if not;
#  - errors (exit 2): corrupt file, a policy outside the kernel subset,
#    parameters or a policy name the source does not have, usage;
#  - the cached replay program is reused, and rebuilt after an edit;
#  - synthetic recordings (gen_fifo: seeded random workloads, interleaved
#    CPUs, with and without steal=1) match, and LIFO diverges on each;
#  - recordings with PREEMPT calls (gen -k: preempt() from a kick) replay
#    through fifo's tick(), the default of preempt();
#  - wfq's synthetic recordings (gen_wfq) carry its saakm_exec_ns() reads
#    as INPUT records and match; the same source reading
#    p->se.sum_exec_runtime itself, which replay does not have, diverges;
#  - a few million records replay to the end (the time is reported only).
# Usage: t_replay.sh SAAKM_BINARY GEN_FIFO_BINARY GEN_WFQ_BINARY. Prints TAP.
set -u
saakm=$1
gen=$2
gen_wfq=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fifo=$root/policies/fifo/saakm_fifo.c
. "$root/tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache
cache=$XDG_CACHE_HOME/saakm/replay

# variant NAME SED: a copy of fifo with one line changed, in $tmp/NAME/
variant() {
	mkdir -p "$tmp/$1"
	sed "$2" "$fifo" >"$tmp/$1/saakm_fifo.c"
	[ "$(diff "$fifo" "$tmp/$1/saakm_fifo.c" | grep -c '^>')" = 1 ] ||
		echo "# variant $1: the sed script no longer changes exactly one line" >&2
}
variant lifo 's/struct task_struct \*p = saakm_rq_first(rq_of(cpu));/struct task_struct *p = NULL, *q; saakm_rq_for_each(q, rq_of(cpu)) p = q;/'
variant firstcpu 's/return cpumask_nth(p->pid % cpumask_weight(p->cpus_ptr), p->cpus_ptr);/return cpumask_first(p->cpus_ptr);/'
variant noblock '/^static void fifo_block/,/^}/s/saakm_change_state(p, SAAKM_BLOCKED, -1, NULL);/;/'
mkdir -p "$tmp/bad"
sed 's|#include <linux/saakm.h>|#include <linux/saakm.h>\n#include <linux/workqueue.h>|' "$fifo" >"$tmp/bad/saakm_fifo.c"

# replay FILE SRC [ARGS]: run it, output in $out, status in $rc
replay() {
	out=$("$saakm" replay "$@" 2>&1)
	rc=$?
}

# expect STATUS DESC PATTERN...: the last replay exited STATUS and printed every PATTERN
expect() {
	local want=$1 desc=$2 p
	shift 2
	for p in "$@"; do
		grep -q -- "$p" <<<"$out" || want=mismatch
	done
	if [ "$rc" = "$want" ]; then ok "$desc"; else not_ok "$desc" "status $rc: $out"; fi
}

# --- the fixture ------------------------------------------------------------------
fx=$here/fixtures/record/fifo.trace
"$saakm" convert "$fx" -p fifo -i 1 -P "slice_ms=20 steal=N" -o "$tmp/fx.rec" >/dev/null 2>&1
replay "$tmp/fx.rec" "$fifo"
[ "$rc" = 0 ] && grep -q "all 57 records match (20 calls)" <<<"$out" &&
	ok "fixture: fifo replays its recording, all 57 records match" ||
	not_ok "fixture: fifo replays its recording, all 57 records match" "status $rc: $out"

replay "$tmp/fx.rec" "$fifo" -v
[ "$rc" = 0 ] && [ "$(grep -c '^  [0-9]* \[[01]\] CALL ' <<<"$out")" = 20 ] &&
	ok "fixture: -v lists the 20 calls as they are replayed" ||
	not_ok "fixture: -v lists the 20 calls as they are replayed" "status $rc"

# cpu 0's first pick is where LIFO differs: tasks 100 then 102 are queued there
pick=$("$saakm" dump "$tmp/fx.rec" | awk '/ \[0\] STATE .* READY -> RUNNING/ { print $1; exit }')
replay "$tmp/fx.rec" "$tmp/lifo/saakm_fifo.c" --last 3
[ "$rc" = 1 ] && grep -q "DIVERGENCE at record $pick (seq $pick), cpu 0, task 100" <<<"$out" &&
	grep -q "expected: STATE pid 100 READY -> RUNNING cpu 0" <<<"$out" &&
	grep -q "got:      STATE pid 102 READY -> RUNNING cpu 0" <<<"$out" &&
	ok "fixture: LIFO diverges at cpu 0's first pick (seq $pick), past cpu 1's interleaved call" ||
	not_ok "fixture: LIFO diverges at cpu 0's first pick (seq ${pick:-?})" "status $rc: $out"
n=$(sed -n '/records before it/,$p' <<<"$out" | grep -cE '^[ >!] +[0-9]+ ')
[ "$n" = 4 ] && grep -qE "^! +$pick " <<<"$out" && grep -qE "^> +$((pick - 2)) .*CALL  schedule cpu 0" <<<"$out" &&
	grep -qE "^  +$((pick - 1)) .*\[cpu 1\]  CALL  new_prepare" <<<"$out" &&
	ok "fixture: --last 3 prints 3 records before it, the call marked, other CPUs' too" ||
	not_ok "fixture: --last 3 prints 3 records before it, the call marked" "$n lines"

replay "$tmp/fx.rec" "$tmp/firstcpu/saakm_fifo.c"
[ "$rc" = 1 ] && grep -q "DIVERGENCE at record 14 (seq 14), cpu 1, task 101" <<<"$out" &&
	grep -q "expected: RET   new_prepare cpu 1 -> 1" <<<"$out" && grep -q "got:      RET   new_prepare cpu 1 -> 0" <<<"$out" &&
	ok "fixture: another CPU choice diverges at its RET (interleaved with cpu 0)" ||
	not_ok "fixture: another CPU choice diverges at its RET (interleaved with cpu 0)" "status $rc: $out"
replay "$tmp/fx.rec" "$tmp/noblock/saakm_fifo.c"
[ "$rc" = 1 ] && grep -q "expected: STATE pid 102 RUNNING -> BLOCKED cpu -1 rq -1" <<<"$out" &&
	grep -q "got:      the callback returned without this state change" <<<"$out" &&
	ok "fixture: a missing state change diverges" ||
	not_ok "fixture: a missing state change diverges" "status $rc: $out"

# --- calls of two CPUs at once (fixtures/record/fifo-steal.trace) --------------------
# newly_idle on cpu 1 reads cpu 0's queue (unlocked) while cpu 0's schedule()
# is between its CALL and its state change: replay must run them in that order
sx=$here/fixtures/record/fifo-steal.trace
"$saakm" convert "$sx" -p fifo -i 3 -P "slice_ms=20 steal=Y" -o "$tmp/steal.rec" >/dev/null 2>&1
replay "$tmp/steal.rec" "$fifo"
[ "$rc" = 0 ] && grep -q "all 25 records match (9 calls)" <<<"$out" &&
	ok "race: a read of another CPU's queue sees it as it was at that point of the recording" ||
	not_ok "race: a read of another CPU's queue sees it as it was at that point of the recording" "status $rc: $out"
# the other way round: newly_idle read cpu 0's queue after schedule() emptied it
sed -e 's/ seq=21 kind=1 ev=9 cpu=1 pid=-1 a=0 / seq=22 kind=1 ev=9 cpu=1 pid=-1 a=-1 /' \
	-e 's/ seq=22 kind=2 / seq=21 kind=2 /' -e '/ seq=2[45] /d' "$sx" >"$tmp/late.trace"
"$saakm" convert "$tmp/late.trace" -p fifo -i 3 -P "slice_ms=20 steal=Y" -o "$tmp/late.rec" >/dev/null 2>&1
replay "$tmp/late.rec" "$fifo"
[ "$rc" = 0 ] && grep -q "all 23 records match" <<<"$out" && grep -q "1 calls answered as recorded only when called again" <<<"$out" &&
	ok "race: a read made after the other CPU's state change is found by calling the query again" ||
	not_ok "race: a read made after the other CPU's state change is found by calling the query again" "status $rc: $out"
sed 's/len > best_len) {/len > best_len + 100) {/' "$fifo" >"$tmp/nosteal.c"
mkdir -p "$tmp/nosteal" && mv "$tmp/nosteal.c" "$tmp/nosteal/saakm_fifo.c"
replay "$tmp/steal.rec" "$tmp/nosteal/saakm_fifo.c"
[ "$rc" = 1 ] && grep -q "expected: RET   newly_idle cpu 1 -> 0" <<<"$out" && grep -q "got:      RET   newly_idle cpu 1 -> -1" <<<"$out" &&
	grep -q "DIVERGENCE at record 21 (seq 21)" <<<"$out" &&
	ok "race: a query that never answers as recorded still diverges, at its RET" ||
	not_ok "race: a query that never answers as recorded still diverges, at its RET" "status $rc: $out"
sed 's/ seq=24 kind=0 ev=13 cpu=0 / seq=24 kind=0 ev=13 cpu=1 /' "$sx" >"$tmp/steal-old.trace"
"$saakm" convert "$tmp/steal-old.trace" -p fifo -i 3 -P "slice_ms=20 steal=Y" -o "$tmp/steal-old.rec" >/dev/null 2>&1
replay "$tmp/steal-old.rec" "$fifo"
[ "$rc" = 0 ] && grep -q "1 balance_pick calls recorded without their source CPU" <<<"$out" &&
	ok "balance_pick recorded with dst as its cpu: src taken from newly_idle" ||
	not_ok "balance_pick recorded with dst as its cpu: src taken from newly_idle" "status $rc: $out"

# --- reads of other CPUs, recorded (saakm_read_cpu(), fixtures/record/fifo-read.trace) -------
# newly_idle on cpu 1 read cpu 0's queue as 1 task although cpu 0's schedule(), before it in
# the recording, had taken that task (its change had not reached memory): no order of the
# records gives that value, only the INPUT record it was recorded as
rx=$here/fixtures/record/fifo-read.trace
"$saakm" convert "$rx" -p fifo -i 3 -P "slice_ms=20 steal=Y" -o "$tmp/read.rec" >/dev/null 2>&1
replay "$tmp/read.rec" "$fifo"
expect 0 "read_cpu: a stale read of another CPU's queue is served from its INPUT record and matches" \
	"all 26 records match (9 calls)"
mkdir -p "$tmp/raw"
sed 's/saakm_read_cpu(pol, other, saakm_rq_len(rq_of(other)))/saakm_rq_len(rq_of(other))/' "$fifo" >"$tmp/raw/saakm_fifo.c"
[ "$(diff "$fifo" "$tmp/raw/saakm_fifo.c" | grep -c '^>')" = 1 ] || echo "# variant raw: the sed script no longer changes exactly one line" >&2
replay "$tmp/read.rec" "$tmp/raw/saakm_fifo.c"
expect 1 "read_cpu: the same source reading the queue without saakm_read_cpu() sees it empty: diverges" \
	"DIVERGENCE at record 22 (seq 22), cpu 1" "expected: INPUT read_cpu cpu 0 = 1" "got:      the callback returned"
sed 's/ seq=22 kind=4 ev=3 cpu=-1 pid=-1 a=0 / seq=22 kind=4 ev=3 cpu=-1 pid=-1 a=1 /' "$rx" >"$tmp/read-cpu1.trace"
"$saakm" convert "$tmp/read-cpu1.trace" -p fifo -i 3 -P "slice_ms=20 steal=Y" -o "$tmp/read-cpu1.rec" >/dev/null 2>&1
replay "$tmp/read-cpu1.rec" "$fifo"
expect 1 "read_cpu: a read of another CPU than recorded diverges at its INPUT" \
	"expected: INPUT read_cpu cpu 1 = 1" "got:      INPUT read_cpu cpu 0 (asked)"
# shinjuku's newly_idle() walks the shared queue under sj_lock, and records its length there:
# replay must not take the lock at the CALL (cpu 1's block(), between, would find it held)
lx=$here/fixtures/record/shinjuku-lock.trace
"$saakm" convert "$lx" -p shinjuku -i 5 -P "slice_us=30" -o "$tmp/lock.rec" >/dev/null 2>&1
replay "$tmp/lock.rec" "$root/policies/shinjuku/saakm_shinjuku.c"
expect 0 "read_cpu: a read under a policy lock waits for its turn before taking the lock (shinjuku)" \
	"all 16 records match (5 calls)"
# recordings without read_cpu records (kernels before saakm_read_cpu()): the read sees the replayed world
replay "$tmp/steal.rec" "$fifo"
expect 0 "read_cpu: a recording without read_cpu records replays, the reads served by the replayed world" \
	"1 reads of another CPU's state (saakm_read_cpu()) have no INPUT record"

# --- incomplete recordings ------------------------------------------------------------
sed '/ seq=50 /d' "$fx" >"$tmp/gap.trace"
"$saakm" convert "$tmp/gap.trace" -p fifo -i 1 -P "slice_ms=20 steal=N" -o "$tmp/gap.rec" >/dev/null 2>&1
replay "$tmp/gap.rec" "$fifo"
[ "$rc" = 3 ] && grep -q "the first 49 records match" <<<"$out" && grep -q "incomplete" <<<"$out" &&
	ok "gap: matches up to the gap, then exit 3 (incomplete)" ||
	not_ok "gap: matches up to the gap, then exit 3 (incomplete)" "status $rc: $out"
replay "$tmp/gap.rec" "$tmp/lifo/saakm_fifo.c"
[ "$rc" = 1 ] && ok "gap: a divergence before the gap is still exit 1" ||
	not_ok "gap: a divergence before the gap is still exit 1" "status $rc"

# --- errors -------------------------------------------------------------------------------
head -c 700 "$tmp/fx.rec" >"$tmp/short.rec"
replay "$tmp/short.rec" "$fifo"
[ "$rc" = 2 ] && grep -q "truncated or corrupt" <<<"$out" && ok "error: a truncated file is exit 2 with the reason" ||
	not_ok "error: a truncated file is exit 2 with the reason" "status $rc: $out"
replay "$tmp/fx.rec" "$tmp/bad/saakm_fifo.c"
[ "$rc" = 2 ] && grep -q "may use" <<<"$out" && grep -q "only <linux/saakm.h>" <<<"$out" &&
	ok "error: a policy outside the kernel subset: exit 2, the subset named" ||
	not_ok "error: a policy outside the kernel subset: exit 2, the subset named" "status $rc: $(tail -3 <<<"$out")"
"$saakm" convert "$fx" -p fifo -i 1 -P "nosuch=1" -o "$tmp/p.rec" >/dev/null 2>&1
replay "$tmp/p.rec" "$fifo"
[ "$rc" = 2 ] && grep -q "parameters 'nosuch=1' do not apply" <<<"$out" &&
	ok "error: recorded parameters the source lacks: exit 2" ||
	not_ok "error: recorded parameters the source lacks: exit 2" "status $rc: $out"
"$saakm" convert "$fx" -p other -i 1 -o "$tmp/o.rec" >/dev/null 2>&1
replay "$tmp/o.rec" "$fifo"
[ "$rc" = 2 ] && grep -q "recording is of policy 'other'; this source registers 'fifo'" <<<"$out" &&
	ok "error: a recording of another policy: exit 2" ||
	not_ok "error: a recording of another policy: exit 2" "status $rc: $out"
replay "$tmp/fx.rec"
[ "$rc" = 2 ] && ok "error: usage without a policy source is exit 2" || not_ok "error: usage without a policy source is exit 2"
replay "$tmp/nosuch.rec" "$fifo"
[ "$rc" = 2 ] && grep -q "nosuch.rec" <<<"$out" && ok "error: a missing recording is exit 2, named" ||
	not_ok "error: a missing recording is exit 2, named" "status $rc"

# --- the build cache ---------------------------------------------------------------------
before=$(ls "$cache" | grep -c '^saakm_fifo-')
replay "$tmp/fx.rec" "$fifo"
replay "$tmp/fx.rec" "$tmp/lifo/saakm_fifo.c"
after=$(ls "$cache" | grep -c '^saakm_fifo-')
[ "$before" -ge 2 ] && [ "$before" = "$after" ] && ok "cache: a replay of an unchanged source reuses its program" ||
	not_ok "cache: a replay of an unchanged source reuses its program" "$before then $after programs"
echo "/* edited */" >>"$tmp/lifo/saakm_fifo.c"
replay "$tmp/fx.rec" "$tmp/lifo/saakm_fifo.c"
[ "$rc" = 1 ] && [ "$(ls "$cache" | grep -c '^saakm_fifo-')" = $((after + 1)) ] &&
	ok "cache: an edited source is rebuilt" || not_ok "cache: an edited source is rebuilt"
echo "/* edited again */" >>"$tmp/lifo/saakm_fifo.c"
n=$(ls "$cache" | grep -c '^saakm_fifo-')
bin=$("$saakm" replay --build "$tmp/lifo/saakm_fifo.c")
rc=$?
[ "$rc" = 0 ] && [ -x "$bin" ] && [ "${bin#"$cache"/saakm_fifo-}" != "$bin" ] &&
	[ "$(ls "$cache" | grep -c '^saakm_fifo-')" = $((n + 1)) ] &&
	ok "cache: --build builds the program and prints its path" ||
	not_ok "cache: --build builds the program and prints its path" "status $rc, printed '$bin'"
replay "$tmp/fx.rec" "$tmp/lifo/saakm_fifo.c"
[ "$rc" = 1 ] && [ "$(ls "$cache" | grep -c '^saakm_fifo-')" = $((n + 1)) ] &&
	ok "cache: a replay after --build uses the program it built" ||
	not_ok "cache: a replay after --build uses the program it built" "status $rc"
# kbuild's NAME.mod.c beside a module's source is an output, not a source
echo "/* kbuild output */" >"$tmp/lifo/saakm_fifo.mod.c"
bin2=$("$saakm" replay --build "$tmp/lifo/saakm_fifo.c")
rm -f "$tmp/lifo/saakm_fifo.mod.c"
[ -n "$bin" ] && [ "$bin2" = "$bin" ] && ok "cache: a NAME.mod.c beside the source does not change the program" ||
	not_ok "cache: a NAME.mod.c beside the source does not change the program" "$bin, then $bin2"

# --- synthetic recordings -------------------------------------------------------------------
for params in "" "steal=1"; do
	for seed in 1 2 3; do
		name="seed $seed${params:+ $params}"
		"$gen" "$tmp/s.rec" -n 100000 -c 4 -t 16 -s "$seed" ${params:+-P "$params"} -i >/dev/null ||
			{ not_ok "synthetic $name: generated"; continue; }
		replay "$tmp/s.rec" "$fifo"
		m=$rc
		replay "$tmp/s.rec" "$tmp/lifo/saakm_fifo.c"
		[ "$m" = 0 ] && [ "$rc" = 1 ] && grep -q "expected: STATE pid .* READY -> RUNNING" <<<"$out" &&
			ok "synthetic $name: fifo matches, LIFO diverges at a pick" ||
			not_ok "synthetic $name: fifo matches, LIFO diverges at a pick" "fifo $m, lifo $rc"
	done
done
"$gen" "$tmp/s.rec" -n 100000 -c 4 -t 16 -s 1 -P steal=1 >/dev/null
"$saakm" dump "$tmp/s.rec" >"$tmp/s.txt"
grep -q "CALL  balance_pick" "$tmp/s.txt" && grep -q "INPUT can_migrate" "$tmp/s.txt" && grep -q "INPUT read_cpu" "$tmp/s.txt" &&
	ok "synthetic: steal=1 recordings exercise balance_pick, can_migrate and read_cpu inputs" ||
	not_ok "synthetic: steal=1 recordings exercise balance_pick, can_migrate and read_cpu inputs"

for seed in 1 2; do
	"$gen" "$tmp/k.rec" -n 100000 -c 4 -t 16 -s "$seed" -P slice_ms=4 -i -k >/dev/null
	npre=$("$saakm" dump "$tmp/k.rec" | grep -c "CALL  preempt")
	replay "$tmp/k.rec" "$fifo"
	m=$rc
	replay "$tmp/k.rec" "$tmp/lifo/saakm_fifo.c"
	[ "$npre" -gt 0 ] && [ "$m" = 0 ] && [ "$rc" = 1 ] &&
		ok "synthetic seed $seed with PREEMPT calls ($npre): fifo matches through tick(), LIFO diverges" ||
		not_ok "synthetic seed $seed with PREEMPT calls: fifo matches through tick(), LIFO diverges" \
			"$npre preempt calls, fifo $m, lifo $rc"
done

# --- kernel state only through recorded accessors (wfq: saakm_exec_ns()) -----------------------
wfq=$root/policies/wfq/saakm_wfq.c
mkdir -p "$tmp/wfq_raw"
sed 's/saakm_exec_ns(p)/p->se.sum_exec_runtime/' "$wfq" >"$tmp/wfq_raw/saakm_wfq.c"
for seed in 1 2; do
	"$gen_wfq" "$tmp/w.rec" -n 100000 -c 4 -t 16 -s "$seed" -i >/dev/null
	nexec=$("$saakm" dump "$tmp/w.rec" | grep -c "INPUT exec_ns")
	replay "$tmp/w.rec" "$wfq"
	m=$rc
	replay "$tmp/w.rec" "$tmp/wfq_raw/saakm_wfq.c"
	[ "$nexec" -gt 0 ] && [ "$m" = 0 ] && [ "$rc" = 1 ] && grep -q "expected: INPUT exec_ns" <<<"$out" &&
		ok "synthetic wfq seed $seed ($nexec exec_ns inputs): matches; reading sum_exec_runtime diverges" ||
		not_ok "synthetic wfq seed $seed: matches; reading sum_exec_runtime diverges" \
			"$nexec exec_ns inputs, wfq $m, raw $rc"
done

# --- speed ---------------------------------------------------------------------------------------
"$gen" "$tmp/big.rec" -n 3000000 -c 8 -t 32 -s 5 -P steal=1 -i >/dev/null
t0=$(date +%s.%N)
replay "$tmp/big.rec" "$fifo"
t1=$(date +%s.%N)
secs=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')
# The time is reported, not judged: a timed test fails on a loaded host
# (it did once, next to a kernel build); make bench-replay measures speed.
diag "replay speed: $(grep -o '[0-9]* records/s' <<<"$out") in the engine; $secs s for 3M records with the file read"
[ "$rc" = 0 ] && ok "3 million records replay to the end ($secs s)" ||
	not_ok "3 million records replay to the end" "status $rc"
done_testing
