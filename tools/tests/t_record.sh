#!/bin/bash
# Host test of 'saakm record', 'saakm convert', 'saakm dump' and 'saakm
# trace-json' without a SaaKM kernel: a fake tracefs (SAAKM_TRACEFS), /sys
# (SAAKM_SYS) and /proc/saakm (SAAKM_PROC). The recorded command plays the
# kernel: it checks the instance was set up as SPEC.md says (clock mono, no
# overwrite, event and knob on) and writes the trace text
# (fixtures/record/fifo.trace) and ring-buffer stats into the instance.
# Checks the file written, the loss detection, the cleanup (knob, tracing
# and event off) after success, failure and SIGINT, and the JSON.
# Usage: t_record.sh SAAKM_BINARY. Prints TAP (tests/guest/tap.sh).
set -u
saakm=$1
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/fixtures
. "$here/../../tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export SAAKM_TRACEFS=$tmp/tracefs SAAKM_SYS=$tmp/sys SAAKM_PROC=$fx/basic
inst=$SAAKM_TRACEFS/instances/saakm-record
knob=$SAAKM_SYS/kernel/saakm/record

# fresh: an empty fake tracefs and /sys with fifo's module parameters
fresh() {
	rm -rf "$SAAKM_TRACEFS" "$SAAKM_SYS"
	mkdir -p "$SAAKM_TRACEFS/instances" "$SAAKM_SYS/kernel/saakm" \
		"$SAAKM_SYS/module/saakm_fifo/parameters" "$SAAKM_SYS/devices/system/cpu"
	echo 0 >"$knob"
	echo 20 >"$SAAKM_SYS/module/saakm_fifo/parameters/slice_ms"
	echo N >"$SAAKM_SYS/module/saakm_fifo/parameters/steal"
	echo 0-1 >"$SAAKM_SYS/devices/system/cpu/possible"
}

# The "kernel": what the recorded command does. $1: sed script applied to
# the fixture trace, $2: dropped events in cpu1's stats.
cat >"$tmp/kernel.sh" <<'EOF'
inst=$SAAKM_TRACEFS/instances/saakm-record
[ "$(cat "$SAAKM_SYS/kernel/saakm/record")" = 1 ] || { echo "knob not set" >&2; exit 9; }
[ "$(cat "$inst/trace_clock")" = mono ] || { echo "clock not mono" >&2; exit 9; }
[ "$(cat "$inst/options/overwrite")" = 0 ] || { echo "overwrite on" >&2; exit 9; }
[ "$(cat "$inst/buffer_size_kb")" = "$3" ] || { echo "buffer size $(cat "$inst/buffer_size_kb")" >&2; exit 9; }
[ "$(cat "$inst/tracing_on")" = 1 ] || { echo "tracing off" >&2; exit 9; }
[ "$(cat "$inst/events/saakm/saakm_record/enable")" = 1 ] || { echo "event off" >&2; exit 9; }
sed "$1" "$FIXTURE" >"$inst/trace"
mkdir -p "$inst/per_cpu/cpu0" "$inst/per_cpu/cpu1"
printf 'entries: %s\noverrun: 0\ncommit overrun: 0\ndropped events: 0\n' "${5:-10}" >"$inst/per_cpu/cpu0/stats"
printf 'entries: 10\noverrun: 0\ncommit overrun: 0\ndropped events: %s\n' "$2" >"$inst/per_cpu/cpu1/stats"
exit "${4:-0}"
EOF
export FIXTURE=$fx/record/fifo.trace

# cleaned: the knob, tracing and the event are off again
cleaned() {
	[ "$(cat "$knob")" = 0 ] && [ "$(cat "$inst/tracing_on")" = 0 ] &&
		[ "$(cat "$inst/events/saakm/saakm_record/enable")" = 0 ]
}

# --- a recording -------------------------------------------------------------------
fresh
out=$("$saakm" record -p fifo -b 1024 -o "$tmp/a.rec" --no-join -- sh "$tmp/kernel.sh" '' 0 1024 2>&1)
rc=$?
[ "$rc" = 0 ] && ok "record: a command run under the recorder exits 0" ||
	not_ok "record: a command run under the recorder exits 0" "status $rc: $out"
grep -q "57 records (20 calls), 0 lost" <<<"$out" && ok "record: summary counts records and calls" ||
	not_ok "record: summary counts records and calls" "$out"
cleaned && ok "record: knob, tracing and event are off afterwards" ||
	not_ok "record: knob, tracing and event are off afterwards"
dump=$("$saakm" dump "$tmp/a.rec" 2>&1)
head -2 <<<"$dump" | grep -q "policy=fifo module=saakm_fifo cpus=2 records=57 lost=0 flags=0" &&
	grep -qx "params=slice_ms=20 steal=N" <<<"$dump" &&
	ok "record: header has policy, module, possible CPUs and module parameters" ||
	not_ok "record: header has policy, module, possible CPUs and module parameters" "$(head -2 <<<"$dump")"
[ "$(sed -n 3p <<<"$dump" | cut -d' ' -f1)" = 1 ] && [ "$(tail -1 <<<"$dump" | cut -d' ' -f1)" = 57 ] &&
	[ "$(grep -c '^[0-9]' <<<"$dump")" = 57 ] && ok "record: records 1..57, the other policy's left out" ||
	not_ok "record: records 1..57, the other policy's left out"

# --- lost records ------------------------------------------------------------------
fresh
out=$("$saakm" record -p 1 -o "$tmp/lost.rec" --no-join -- sh "$tmp/kernel.sh" '/ seq=30 /d' 0 32768 2>&1)
rc=$?
[ "$rc" = 0 ] && grep -q "56 records (.*), 1 lost" <<<"$out" && grep -q "first 30" <<<"$out" &&
	ok "lost: a seq gap is counted, first missing seq named" ||
	not_ok "lost: a seq gap is counted, first missing seq named" "status $rc: $out"
"$saakm" dump "$tmp/lost.rec" | head -1 | grep -q "lost=1 flags=0x1" &&
	ok "lost: the file is marked incomplete" || not_ok "lost: the file is marked incomplete"
fresh
out=$("$saakm" record -p fifo -o "$tmp/drop.rec" --no-join -- sh "$tmp/kernel.sh" '' 12 32768 2>&1)
grep -q "57 records (.*), 12 lost" <<<"$out" && grep -q "12 dropped by the ring buffers" <<<"$out" &&
	"$saakm" dump "$tmp/drop.rec" | head -1 | grep -q "lost=12 flags=0x1" &&
	ok "lost: events the ring buffer dropped (stats) mark the file incomplete" ||
	not_ok "lost: events the ring buffer dropped (stats) mark the file incomplete" "$out"

fresh
out=$("$saakm" record -p fifo -o "$tmp/unread.rec" --no-join -- sh "$tmp/kernel.sh" '' 0 32768 0 60 2>&1)
grep -q "the buffers held 70 events, 12 were not read back" <<<"$out" && grep -q "57 records (.*), 12 lost" <<<"$out" &&
	ok "lost: events the buffers held but the trace text did not show count as lost" ||
	not_ok "lost: events the buffers held but the trace text did not show count as lost" "$out"

# --- failures and cleanup -------------------------------------------------------------
fresh
"$saakm" record -p fifo -o "$tmp/f.rec" --no-join -- sh "$tmp/kernel.sh" '' 0 32768 3 >/dev/null 2>&1
rc=$?
[ "$rc" = 3 ] && cleaned && [ -s "$tmp/f.rec" ] &&
	ok "record: a failing command's status is returned, the recording kept, cleanup done" ||
	not_ok "record: a failing command's status is returned, the recording kept, cleanup done" "status $rc"
fresh
"$saakm" record -p fifo -o "$tmp/g.rec" --no-join -- /nonexistent/cmd >/dev/null 2>&1
rc=$?
[ "$rc" = 127 ] && cleaned && ok "record: a command that cannot run: 127, cleanup done" ||
	not_ok "record: a command that cannot run: 127, cleanup done" "status $rc"
fresh
mkdir -p "$inst"
out=$("$saakm" record -p fifo -o "$tmp/h.rec" -- true 2>&1)
rc=$?
[ "$rc" = 1 ] && grep -q "another 'saakm record' is running" <<<"$out" && [ "$(cat "$knob")" = 0 ] &&
	[ -d "$inst" ] && ok "record: an existing instance is not taken over" ||
	not_ok "record: an existing instance is not taken over" "status $rc: $out"
fresh
out=$("$saakm" record -p nosuch -- true 2>&1)
[ "$?" = 1 ] && grep -q "no such policy" <<<"$out" && [ ! -d "$inst" ] &&
	ok "record: unknown policy fails before touching tracefs" ||
	not_ok "record: unknown policy fails before touching tracefs" "$out"
out=$("$saakm" record -o x 2>&1)
[ "$?" = 2 ] && grep -q "needs a policy" <<<"$out" && ok "record: -p is required (usage, 2)" ||
	not_ok "record: -p is required (usage, 2)" "$out"
out=$("$saakm" record -p fifo -b 0 2>&1)
[ "$?" = 2 ] && ok "record: a bad buffer size is a usage error" || not_ok "record: a bad buffer size is a usage error" "$out"

# SIGINT without a command: stops, converts, cleans up
fresh
"$saakm" record -p fifo -o "$tmp/int.rec" >"$tmp/int.out" 2>&1 &
pid=$!
for _ in $(seq 50); do [ "$(cat "$knob" 2>/dev/null)" = 1 ] && break; sleep 0.1; done
cp "$FIXTURE" "$inst/trace"
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 0 ] && cleaned && grep -q "57 records" "$tmp/int.out" &&
	ok "record: Ctrl-C stops a recording without command, which is converted and cleaned up" ||
	not_ok "record: Ctrl-C stops a recording without command, which is converted and cleaned up" "status $rc: $(cat "$tmp/int.out")"

# --- convert, trace-json ------------------------------------------------------------------
"$saakm" convert "$FIXTURE" -p fifo -i 1 -o "$tmp/c.rec" >/dev/null 2>&1 &&
	cmp -s <("$saakm" dump "$tmp/c.rec" | tail -n +3) <("$saakm" dump "$tmp/a.rec" | tail -n +3) &&
	ok "convert: a saved trace gives the same records as record" ||
	not_ok "convert: a saved trace gives the same records as record"
out=$("$saakm" convert "$tmp/nosuch.trace" -p fifo -o "$tmp/x.rec" 2>&1)
[ "$?" = 1 ] && grep -q "nosuch.trace" <<<"$out" && ok "convert: a missing trace file is an error naming it" ||
	not_ok "convert: a missing trace file is an error naming it" "$out"
printf 'BADMAGIC' >"$tmp/bad.rec"
out=$("$saakm" dump "$tmp/bad.rec" 2>&1)
[ "$?" = 2 ] && grep -q "bad.rec: not a SaaKM recording" <<<"$out" && ok "dump: a corrupt file is refused with a reason" ||
	not_ok "dump: a corrupt file is refused with a reason" "$out"

"$saakm" trace-json "$tmp/a.rec" >/dev/null 2>&1
if [ -s "$tmp/a.json" ] && python3 - "$tmp/a.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
assert names[(1, 0)] == "CPU 0" and names[(1, 1)] == "CPU 1", names
runs = [e for e in ev if e.get("ph") == "X" and e["pid"] == 1]
# task 100 runs twice on cpu 0: until its tick preemption, then until it terminates
r100 = [e for e in runs if e["name"] == "pid 100"]
assert len(r100) == 2 and all(e["tid"] == 0 for e in r100), r100
assert all(e["dur"] >= 0 for e in ev if e.get("ph") == "X")
waits = [e for e in ev if e.get("ph") == "X" and e["pid"] == 2 and e["name"].startswith("wait")]
assert any(e["tid"] == 102 for e in waits) and any(e["tid"] == 101 and e["name"] == "wait on cpu 1" for e in waits)
calls = [e for e in ev if e.get("ph") == "i"]
assert len(calls) == 20 and {e["name"] for e in calls} >= {"schedule", "tick", "new_place", "terminate"}
EOF
then
	ok "trace-json: valid JSON with CPU tracks, runs, waits and one instant per call"
else
	not_ok "trace-json: valid JSON with CPU tracks, runs, waits and one instant per call"
fi
done_testing
