#!/bin/sh
# The saakm: tracepoints, read with the ecosystem's tools. A small workload
# (four children that each spin, sleep and exit) runs under the FIFO policy
# twice: once while `trace-cmd record -e saakm -e sched:sched_switch`
# records, once under `perf sched record`. Checks that `trace-cmd report`
# prints saakm_event with event names and saakm_state with from=/to= state
# names (both lists read from the uapi header), that the pids in those lines
# are the workload's, that each child's life shows in them (placed, run,
# blocked, terminated), and that `perf sched timehist` and `perf script`
# read the perf recording. Needs trace-cmd and perf (make setup).
# saakm-test: timeout=120
# shellcheck disable=SC2015 # "A && ok || not_ok", as in the other tests
. "$(dirname "$0")/lib.sh"

saakm=$SAAKM_ROOT/build/tools/saakm
ko=$SAAKM_ROOT/policies/fifo/saakm_fifo.ko
# the kernel's uapi header, as copied for the tools by make tools
hdr=$SAAKM_ROOT/kernel/src/include/uapi/linux/saakm.h
tr=/sys/kernel/tracing
limit=$((60 * ${SAAKM_TIMEOUT_SCALE:-1}))
tmp=$(mktemp -d)
rep=$tmp/report.txt
tracefs_mounted=
recording=

# Cleanup: lib.sh's (kill what is left, rmmod), then a recording cut short
# leaves no event on, and the scratch directory goes.
trace_cleanup() {
	[ -n "$recording" ] && { echo 0 >"$tr/events/enable"; } 2>/dev/null
	[ -n "$tracefs_mounted" ] && umount "$tr"
	rm -rf "$tmp"
}
trace_exit() {
	_rc=$?
	trap - EXIT
	saakm_cleanup
	trace_cleanup
	exit "$_rc"
}
trap trace_exit EXIT

# xlist MACRO: the entries of the X-macro list MACRO in the uapi header, one
# a line (the last argument of each X(...)).
xlist() {
	awk -v m="#define $1(X)" '
		index($0, m) == 1 { on = 1; next }
		on {
			if (match($0, /X\([^)]*\)/)) {
				n = split(substr($0, RSTART + 2, RLENGTH - 3), a, /, */)
				print a[n]
			}
			if ($0 !~ /\\$/) exit
		}' "$hdr"
}

# perf: Debian's /usr/bin/perf may be a wrapper that refuses a kernel
# version it has no perf for; then use a versioned binary (/usr/bin/perf_X.Y).
find_perf() {
	for _p in perf /usr/bin/perf_*; do
		command -v "$_p" >/dev/null 2>&1 && "$_p" version >/dev/null 2>&1 &&
			{ echo "$_p"; return 0; }
	done
	return 1
}

# The workload, run as "sh work.sh PIDFILE" by a task of the policy: four
# children, each forked under the policy, write their pid, spin, sleep, spin
# again and exit.
cat >"$tmp/work.sh" <<'EOF'
for i in 1 2 3 4; do
	sh -c 'echo $$ >>"$1"; n=0; while [ $n -lt 2000 ]; do n=$((n + 1)); done
		sleep 0.1; n=0; while [ $n -lt 2000 ]; do n=$((n + 1)); done' sh "$1" &
done
wait
EOF

# field KEY: the values of KEY= in the lines of stdin, one a line
field() {
	awk -v k="$1=" '{ for (i = 1; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }'
}

# not_in LIST: the lines of stdin that are not a line of LIST
not_in() {
	awk 'NR == FNR { ok[$0] = 1; next } !($0 in ok)' "$1" -
}

# lines_of EVENT [PID]: the EVENT lines of the report (about pid PID)
lines_of() {
	awk -v e=" $1: " -v p="pid=${2:-}" 'index($0, e) {
		if (p == "pid=") { print; next }
		for (i = 1; i <= NF; i++) if ($i == p) { print; next } }' "$rep"
}

if [ ! -e "$tr/events" ]; then
	mount -t tracefs nodev "$tr" 2>/dev/null && tracefs_mounted=1
fi
if ! command -v trace-cmd >/dev/null 2>&1; then
	skip "trace-cmd records saakm events" "trace-cmd is not installed (make setup)"
	done_testing
fi
check "tracefs has the saakm events" test -d "$tr/events/saakm/saakm_event" -a -d "$tr/events/saakm/saakm_state"
xlist SAAKM_EVENTS >"$tmp/events.list"
xlist SAAKM_STATES >"$tmp/states.list"
[ -s "$tmp/events.list" ] && [ -s "$tmp/states.list" ] &&
	ok "event and state names read from the uapi header" ||
	not_ok "event and state names read from the uapi header" "no SAAKM_EVENTS/SAAKM_STATES in $hdr"
check "insmod saakm_fifo" insmod "$ko"

# --- trace-cmd --------------------------------------------------------------------
t0=$(date +%s)
recording=1
timeout "$limit" trace-cmd record -q -o "$tmp/trace.dat" -e saakm -e sched:sched_switch \
	"$saakm" run -p fifo -- sh "$tmp/work.sh" "$tmp/pids" >"$tmp/record.log" 2>&1
rc=$?
diag "trace-cmd record: $(($(date +%s) - t0)) s"
if [ "$rc" -eq 0 ]; then
	ok "trace-cmd record of a workload under fifo"
else
	sed 's/^/# /' "$tmp/record.log"
	not_ok "trace-cmd record of a workload under fifo" "status $rc"
fi
recording=
pids=$(cat "$tmp/pids" 2>/dev/null)
diag "workload pids: $(echo "$pids" | tr "\n" " ")"
[ "$(echo "$pids" | wc -w)" -eq 4 ] && ok "the workload's four children ran" ||
	not_ok "the workload's four children ran" "pids: $(echo "$pids" | tr "\n" " ")"

timeout "$limit" trace-cmd report -i "$tmp/trace.dat" >"$rep" 2>"$tmp/report.err"
n_ev=$(grep -c ' saakm_event: ' "$rep")
n_st=$(grep -c ' saakm_state: ' "$rep")
diag "trace-cmd report: $(($(date +%s) - t0)) s since the recording started"
diag "trace-cmd report: $n_ev saakm_event, $n_st saakm_state, $(grep -c ' sched_switch: ' "$rep") sched_switch lines"
[ "$n_ev" -gt 0 ] && [ "$n_st" -gt 0 ] && ok "trace-cmd report shows saakm_event and saakm_state" ||
	not_ok "trace-cmd report shows saakm_event and saakm_state" "$(head -3 "$tmp/report.err")"
grep -m2 ' saakm_event: ' "$rep" | sed 's/^ */# /'
grep -m2 ' saakm_state: ' "$rep" | sed 's/^ */# /'

n_e=$(lines_of saakm_event | grep -c ' event=')
bad=$(lines_of saakm_event | field event | sort -u | not_in "$tmp/events.list")
[ "$n_ev" -gt 0 ] && [ "$n_e" -eq "$n_ev" ] && [ -z "$bad" ] && ok "saakm_event: every event= is a name from SAAKM_EVENTS" ||
	not_ok "saakm_event: every event= is a name from SAAKM_EVENTS" "not names: $(echo "$bad" | tr "\n" " " | cut -c1-80)"
n_ft=$(lines_of saakm_state | grep -c ' from=[^ ]* to=')
bad=$( { lines_of saakm_state | field from; lines_of saakm_state | field to; } | sort -u | not_in "$tmp/states.list")
[ "$n_st" -gt 0 ] && [ "$n_ft" -eq "$n_st" ] && [ -z "$bad" ] && ok "saakm_state: every from=/to= is a name from SAAKM_STATES" ||
	not_ok "saakm_state: every from=/to= is a name from SAAKM_STATES" "not names: $(echo "$bad" | tr "\n" " " | cut -c1-80)"

# Each child was forked under the policy, ran, slept and exited: its pid is in
# the events new_place, block and terminate, its states went through RUNNING
# and BLOCKED and ended TERMINATED, and sched_switch switched to it.
ev_miss="" st_miss="" sw_miss=""
for p in $pids; do
	evs=" $(lines_of saakm_event "$p" | field event | sort -u | tr '\n' ' ')"
	for e in new_place block terminate; do
		case $evs in *" $e "*) ;; *) ev_miss="$ev_miss $p:$e" ;; esac
	done
	tos=$(lines_of saakm_state "$p" | field to | tr '\n' ' ')
	case " $tos" in *" RUNNING "*" BLOCKED "*" TERMINATED ") ;; *) st_miss="$st_miss $p:[$tos]" ;; esac
	# trace-cmd's sched_switch plugin prints "prev ==> next_comm:next_pid [prio]"
	grep -qE " sched_switch: .*(==> .*:$p \[|next_pid=$p )" "$rep" || sw_miss="$sw_miss $p"
done
[ -n "$pids" ] && [ -z "$ev_miss" ] && ok "saakm_event: each workload pid has new_place, block and terminate" ||
	not_ok "saakm_event: each workload pid has new_place, block and terminate" "missing:$ev_miss"
[ -n "$pids" ] && [ -z "$st_miss" ] && ok "saakm_state: each workload pid ran, blocked, and ended TERMINATED" ||
	not_ok "saakm_state: each workload pid ran, blocked, and ended TERMINATED" "$(echo "$st_miss" | cut -c1-200)"
[ -n "$pids" ] && [ -z "$sw_miss" ] && ok "sched_switch switched to each workload pid" ||
	not_ok "sched_switch switched to each workload pid" "missing:$sw_miss"
schedule_n=$(lines_of saakm_event | field event | grep -c '^schedule$')
[ "$schedule_n" -gt 0 ] && ok "saakm_event: schedule events recorded ($schedule_n)" ||
	not_ok "saakm_event: schedule events recorded"

# --- perf sched -------------------------------------------------------------------
# perf reads the same tracepoints as trace-cmd: on the debug kernel, where it
# takes half a minute, only make test-full runs it.
if debug_pass && [ "${SAAKM_FULL:-0}" != 1 ]; then
	skip "perf sched reads a recording of the workload" "the debug kernel's perf run is in make test-full"
elif ! perf=$(find_perf); then
	skip "perf sched reads a recording of the workload" "no working perf (make setup installs linux-perf)"
else
	# -B -N: no build-id collection into ~/.debug (not writable in the guest)
	t0=$(date +%s)
	HOME=$tmp timeout "$limit" "$perf" sched record -B -N -o "$tmp/perf.data" -e saakm:saakm_event -- \
		"$saakm" run -p fifo -- sh "$tmp/work.sh" "$tmp/pids2" >"$tmp/perf-record.log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok "perf sched record of the workload under fifo"
	else
		sed 's/^/# /' "$tmp/perf-record.log"
		not_ok "perf sched record of the workload under fifo" "status $rc"
	fi
	pids2=$(cat "$tmp/pids2" 2>/dev/null)
	HOME=$tmp timeout "$limit" "$perf" sched timehist -i "$tmp/perf.data" >"$tmp/timehist.txt" 2>&1
	miss=
	for p in $pids2; do grep -qE "\[${p}[]/]" "$tmp/timehist.txt" || miss="$miss $p"; done
	[ -n "$pids2" ] && [ -z "$miss" ] && ok "perf sched timehist shows each workload task" ||
		not_ok "perf sched timehist shows each workload task" "pids ${pids2:-none}, missing:$miss; $(tail -1 "$tmp/timehist.txt")"
	HOME=$tmp timeout "$limit" "$perf" script -i "$tmp/perf.data" >"$tmp/script.txt" 2>&1
	n=$(grep -c ' saakm:saakm_event: ' "$tmp/script.txt")
	bad=$(sed -n 's/.* saakm:saakm_event: .*event=\([^ ]*\).*/\1/p' "$tmp/script.txt" | sort -u | not_in "$tmp/events.list")
	[ "$n" -gt 0 ] && [ -z "$bad" ] && ok "perf script prints saakm_event with event names ($n lines)" ||
		not_ok "perf script prints saakm_event with event names" "$n lines; not names: $(echo "$bad" | tr "\n" " " | cut -c1-80)"
	diag "perf record, timehist and script: $(($(date +%s) - t0)) s"
fi

check "rmmod saakm_fifo" rmmod saakm_fifo
saakm_log_clean
done_testing
