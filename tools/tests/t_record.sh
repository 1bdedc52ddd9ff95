#!/bin/bash
# Host test of 'saakm record', 'saakm convert', 'saakm dump' and 'saakm
# trace-json' without a SaaKM kernel: a fake /sys (SAAKM_SYS), /proc/saakm
# (SAAKM_PROC) and /proc/saakm/record_buf (SAAKM_RECORD_BUF, a plain file).
# The recorded command plays the kernel: it checks the buffer size was
# written and the knob is on, and writes what the kernel's arrays would
# give (mkbuf, from fixtures/record/fifo.trace) into record_buf. Checks the
# file written, the loss detection (seq gaps, dropped records), refused
# arrays, the cleanup (knob off, buffers freed) after success, failure and
# SIGINT, and the JSON.
# Usage: t_record.sh SAAKM_BINARY MKBUF_BINARY. Prints TAP (tests/guest/tap.sh).
set -u
saakm=$1
export MKBUF=$2
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/fixtures
. "$here/../../tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export SAAKM_SYS=$tmp/sys SAAKM_PROC=$fx/basic SAAKM_RECORD_BUF=$tmp/record_buf
knob=$SAAKM_SYS/kernel/saakm/record
buf=$SAAKM_RECORD_BUF

# fresh: an empty fake /sys with fifo's module parameters, no record_buf
fresh() {
	rm -rf "$SAAKM_SYS" "$buf"
	mkdir -p "$SAAKM_SYS/kernel/saakm" \
		"$SAAKM_SYS/module/saakm_fifo/parameters" "$SAAKM_SYS/devices/system/cpu"
	echo 0 >"$knob"
	echo 20 >"$SAAKM_SYS/module/saakm_fifo/parameters/slice_ms"
	echo N >"$SAAKM_SYS/module/saakm_fifo/parameters/steal"
	echo 0-1 >"$SAAKM_SYS/devices/system/cpu/possible"
}

# The "kernel": what the recorded command does. $1: sed script applied to
# the fixture trace, $2: records the arrays dropped, $3: the buffer size
# expected, $4: exit status, $5: the policy id the arrays name, $6: records
# announced but missing.
cat >"$tmp/kernel.sh" <<'EOF'
[ "$(cat "$SAAKM_SYS/kernel/saakm/record")" = 1 ] || { echo "knob not set" >&2; exit 9; }
[ "$(cat "$SAAKM_RECORD_BUF")" = "$3" ] || { echo "buffer size $(cat "$SAAKM_RECORD_BUF")" >&2; exit 9; }
sed "$1" "$FIXTURE" | "$MKBUF" 1 "$2" "${5:-1}" "${6:-0}" >"$SAAKM_RECORD_BUF"
exit "${4:-0}"
EOF
export FIXTURE=$fx/record/fifo.trace

# cleaned: the knob is off and the buffers freed
cleaned() {
	[ "$(cat "$knob")" = 0 ] && [ "$(cat "$buf")" = 0 ]
}

# --- a recording -------------------------------------------------------------------
fresh
out=$("$saakm" record -p fifo -b 1024 -o "$tmp/a.rec" --no-join -- sh "$tmp/kernel.sh" '' 0 1024 2>&1)
rc=$?
[ "$rc" = 0 ] && ok "record: a command run under the recorder exits 0" ||
	not_ok "record: a command run under the recorder exits 0" "status $rc: $out"
grep -q "57 records (20 calls, 23 slots), 0 lost" <<<"$out" && ok "record: summary counts records, calls and the kernel's slots" ||
	not_ok "record: summary counts records, calls and the kernel's slots" "$out"
cleaned && ok "record: knob off and buffers freed afterwards" ||
	not_ok "record: knob off and buffers freed afterwards"
dump=$("$saakm" dump "$tmp/a.rec" 2>&1)
head -2 <<<"$dump" | grep -q "policy=fifo module=saakm_fifo cpus=2 records=57 lost=0 flags=0" &&
	grep -qx "params=slice_ms=20 steal=N" <<<"$dump" &&
	ok "record: header has policy, module, possible CPUs and module parameters" ||
	not_ok "record: header has policy, module, possible CPUs and module parameters" "$(head -2 <<<"$dump")"
seqs=$(grep '^ *[0-9]' <<<"$dump" | awk '{ print $1 }' | tr '\n' ' ')
[ "$seqs" = "$(seq 57 | tr '\n' ' ')" ] &&
	ok "record: records 1..57 in seq order (the arrays give them CPU by CPU), the other policy's left out" ||
	not_ok "record: records 1..57 in seq order (the arrays give them CPU by CPU), the other policy's left out" "$seqs"

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
grep -q "57 records (.*), 12 lost" <<<"$out" && grep -q "12 dropped by full buffers" <<<"$out" &&
	"$saakm" dump "$tmp/drop.rec" | head -1 | grep -q "lost=12 flags=0x1" &&
	ok "lost: records the full arrays dropped after the last one kept mark the file incomplete" ||
	not_ok "lost: records the full arrays dropped after the last one kept mark the file incomplete" "$out"

# --- arrays refused -------------------------------------------------------------------
fresh
out=$("$saakm" record -p fifo -o "$tmp/t.rec" --no-join -- sh "$tmp/kernel.sh" '' 0 32768 0 1 5 2>&1)
rc=$?
[ "$rc" = 1 ] && grep -q "truncated: 23 of 28 slots" <<<"$out" && cleaned && [ ! -e "$tmp/t.rec" ] &&
	ok "arrays: fewer records than announced is an error, no file, cleanup done" ||
	not_ok "arrays: fewer records than announced is an error, no file, cleanup done" "status $rc: $out"
fresh
out=$("$saakm" record -p fifo -o "$tmp/m.rec" --no-join -- sh "$tmp/kernel.sh" '' 0 32768 0 1 -1 2>&1)
[ "$?" = 1 ] && grep -q "more than the 22 slots announced" <<<"$out" &&
	ok "arrays: more records than announced is an error" ||
	not_ok "arrays: more records than announced is an error" "$out"
fresh
out=$("$saakm" record -p fifo -o "$tmp/o.rec" --no-join -- sh "$tmp/kernel.sh" '' 0 32768 0 2 2>&1)
[ "$?" = 1 ] && grep -q "holds a recording of policy 2, not 1" <<<"$out" && cleaned &&
	ok "arrays: another policy's recording is refused" ||
	not_ok "arrays: another policy's recording is refused" "$out"

# --- failures and cleanup -------------------------------------------------------------
fresh
"$saakm" record -p fifo -o "$tmp/f.rec" --no-join -- sh "$tmp/kernel.sh" '' 0 32768 3 >/dev/null 2>&1
rc=$?
[ "$rc" = 3 ] && cleaned && [ -s "$tmp/f.rec" ] &&
	ok "record: a failing command's status is returned, the recording kept, cleanup done" ||
	not_ok "record: a failing command's status is returned, the recording kept, cleanup done" "status $rc"
fresh
# (the fake arrays hold no recording then: saakm record fails reading them)
out=$("$saakm" record -p fifo -o "$tmp/g.rec" --no-join -- /nonexistent/cmd 2>&1)
rc=$?
[ "$rc" = 1 ] && grep -q "saakm: /nonexistent/cmd: No such file or directory" <<<"$out" && cleaned &&
	ok "record: a command that cannot run is named, cleanup done" ||
	not_ok "record: a command that cannot run is named, cleanup done" "status $rc: $out"
fresh
mkdir -p "$buf"
out=$("$saakm" record -p fifo -o "$tmp/h.rec" -- true 2>&1)
rc=$?
[ "$rc" = 1 ] && grep -q "record_buf: Is a directory (a kernel without the SaaKM recorder?)" <<<"$out" &&
	[ "$(cat "$knob")" = 0 ] && ok "record: arrays that cannot be sized: an error, the knob untouched" ||
	not_ok "record: arrays that cannot be sized: an error, the knob untouched" "status $rc: $out"
fresh
out=$("$saakm" record -p nosuch -- true 2>&1)
[ "$?" = 1 ] && grep -q "no such policy" <<<"$out" && [ ! -e "$buf" ] &&
	ok "record: unknown policy fails before touching the recorder" ||
	not_ok "record: unknown policy fails before touching the recorder" "$out"
out=$("$saakm" record -o x 2>&1)
[ "$?" = 2 ] && grep -q "needs a policy" <<<"$out" && ok "record: -p is required (usage, 2)" ||
	not_ok "record: -p is required (usage, 2)" "$out"
out=$("$saakm" record -p fifo -b 0 2>&1)
[ "$?" = 2 ] && ok "record: a bad buffer size is a usage error" || not_ok "record: a bad buffer size is a usage error" "$out"

# SIGINT without a command: stops, reads the arrays, cleans up
fresh
"$saakm" record -p fifo -o "$tmp/int.rec" >"$tmp/int.out" 2>&1 &
pid=$!
for _ in $(seq 50); do [ "$(cat "$knob" 2>/dev/null)" = 1 ] && break; sleep 0.1; done
"$MKBUF" 1 0 <"$FIXTURE" >"$buf"
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 0 ] && cleaned && grep -q "57 records" "$tmp/int.out" &&
	ok "record: Ctrl-C stops a recording without command, which is read and cleaned up" ||
	not_ok "record: Ctrl-C stops a recording without command, which is read and cleaned up" "status $rc: $(cat "$tmp/int.out")"

# --- convert, trace-json ------------------------------------------------------------------
# records without their time: a RET unfolded from its CALL's slot has its CALL's
notime() { "$saakm" dump "$1" | tail -n +3 | cut -d' ' -f1,3-; }
"$saakm" convert "$FIXTURE" -p fifo -i 1 -o "$tmp/c.rec" >/dev/null 2>&1 &&
	cmp -s <(notime "$tmp/c.rec") <(notime "$tmp/a.rec") &&
	ok "convert: a saved trace gives the same records as record" ||
	not_ok "convert: a saved trace gives the same records as record"
# the same with every RET in a slot of its own: times too
fresh
echo 'sed "$1" "$FIXTURE" | "$MKBUF" 1 0 1 0 1 >"$SAAKM_RECORD_BUF"' >"$tmp/nofold.sh"
"$saakm" record -p fifo -o "$tmp/nf.rec" --no-join -- sh "$tmp/nofold.sh" '' >/dev/null 2>&1 &&
	cmp -s <("$saakm" dump "$tmp/c.rec" | tail -n +3) <("$saakm" dump "$tmp/nf.rec" | tail -n +3) &&
	cmp -s <(notime "$tmp/nf.rec") <(notime "$tmp/a.rec") &&
	[ "$("$MKBUF" 1 0 1 0 1 <"$FIXTURE" | wc -c)" -gt "$("$MKBUF" 1 0 <"$FIXTURE" | wc -c)" ] &&
	ok "record: STATEs and RETs folded into their CALLs' slots or not give the same recording" ||
	not_ok "record: STATEs and RETs folded into their CALLs' slots or not give the same recording"
# the kernel times only the CALL of a call: its other records get the CALL's time
"$saakm" dump "$tmp/a.rec" | tail -n +3 | awk '
	{ cpu = $3 }
	$0 ~ /CALL/ { t[cpu] = $2; open[cpu] = 1; next }
	open[cpu] && $2 != t[cpu] { bad++ }
	$0 ~ /RET/ { open[cpu] = 0 }
	END { exit bad ? 1 : 0 }' &&
	ok "record: the records within a call have their CALL's time" ||
	not_ok "record: the records within a call have their CALL's time"
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
# Names are the recorder's to choose (-p, -P; a module parameter's value):
# every byte but NUL must come back from the JSON as it went in.
pol=$(printf 'q"b\\n\nt\te\001\037\x7f\303\251')
par=$(printf 'a="x\\y" b=line1\nline2\tc=\r\b\f/ \\u0041')
"$saakm" convert "$FIXTURE" -p "$pol" -i 1 -P "$par" -o "$tmp/esc.rec" >/dev/null 2>&1 &&
	"$saakm" trace-json "$tmp/esc.rec" -o - 2>/dev/null | POL=$pol PAR=$par python3 -c '
import json, os, sys
d = json.load(sys.stdin.buffer)
o = d["otherData"]
for key, var in (("policy", b"POL"), ("params", b"PAR")):
	want = os.environb[var].decode("utf-8")
	assert o[key] == want, (key, o[key], want)
assert len(d["traceEvents"]) > 20
' && ok 'trace-json: names with ", \, newline, tab and control characters round-trip through valid JSON' ||
	not_ok 'trace-json: names with ", \, newline, tab and control characters round-trip through valid JSON'
done_testing
