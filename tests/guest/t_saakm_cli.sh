#!/bin/sh
# The saakm CLI against a real kernel: load, unload and param by policy
# name, with the module's own messages for refused values; set -a on every
# thread of a process; stats as JSON and OpenMetrics through real parsers;
# and top in a tmux pane, whose figures must agree with stats, quitting on q
# and saying so when the terminal is too small.
# saakm-test: timeout=240
# saakm-test: normal-only
# (On the debug kernel it takes minutes, past the debug pass's budget; what
# it asks of the kernel, module loads and /proc/saakm reads, other tests
# ask there too.)
. "$(dirname "$0")/lib.sh"

cli=$SAAKM_CLI
parse=$SAAKM_ROOT/tools/tests/parse_stats.py
tmp=$(mktemp -d)
sock=saakm_cli_$$
# tmux's server is a daemon, outside the cleanup's reach: end it here too
trap '_rc=$?; tmux -L $sock kill-server 2>/dev/null; rm -rf "$tmp"; (exit $_rc); _saakm_exit' EXIT

# out_has REGEX COMMAND...: COMMAND fails or not, and its output matches
out_has() {
	_re=$1
	shift
	"$@" >"$tmp/out" 2>&1
	echo $? >"$tmp/rc"
	grep -qE -- "$_re" "$tmp/out" || { sed 's/^/# /' "$tmp/out"; return 1; }
}
rc_is() { [ "$(cat "$tmp/rc")" = "$1" ]; }
# for wait_for, which runs its command again and again: evaluated each time
fifo_tasks_are() { [ "$(policy_tasks fifo)" = "$1" ]; }
threads_at_least() { [ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -ge "$2" ]; }

tap_subtest "load, unload, param"
check "load fifo by name" out_has "^loaded policy fifo \(id [0-9]+\)" "$cli" load fifo
check "fifo is listed" test "$(policy_state fifo)" = enabled
check "load fifo again: already loaded" out_has "policy 'fifo' is already loaded" "$cli" load fifo
check "... exit status 1" rc_is 1
check "param fifo lists steal" out_has "^steal=N$" "$cli" param fifo
check "param fifo steal prints the value" out_has "^N$" "$cli" param fifo steal
check "a read-only parameter is refused" out_has "steal: read-only" "$cli" param fifo steal=1
check "param: unknown key" out_has "has no parameter 'nope'" "$cli" param fifo nope=1
check "... exit status 2" rc_is 2
check "unload fifo" out_has "^unloaded policy fifo \(module saakm_fifo\)" "$cli" unload fifo
check "fifo is gone" test -z "$(policy_state fifo)"
check "load with an unknown parameter is refused" \
	out_has "policy fifo has no parameter 'bogus' \(its parameters:.* steal" "$cli" load fifo bogus=1
check "... exit status 2" rc_is 2
check "... and taken back" test ! -d /sys/module/saakm_fifo
check "a value the policy refuses shows its message" \
	out_has "kernel: saakm_eevdf: base_slice_us=5 refused: allowed 100\.\.100000" \
	"$cli" load eevdf base_slice_us=5
check "... exit status 1" rc_is 1
check "load eevdf with parameters" out_has "^loaded policy eevdf" "$cli" load eevdf base_slice_us=900 run_to_parity=0
check "param sets a writable one" "$cli" param eevdf base_slice_us=1200
check "... which reads back" out_has "^1200$" "$cli" param eevdf base_slice_us
check "param: a refused value shows the message" \
	out_has "kernel: saakm_eevdf: base_slice_us=1 refused" "$cli" param eevdf base_slice_us=1
check "... and leaves the old value" out_has "^1200$" "$cli" param eevdf base_slice_us
check "unload eevdf" "$cli" unload eevdf

tap_subtest "set -a"
check "load fifo" "$cli" load fifo
/usr/bin/python3 -c '
import threading, time
for _ in range(3):
    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
time.sleep(60)' &
py=$!
wait_for 20 threads_at_least $py 4
nthreads=$(ls /proc/$py/task | wc -l)
check "set without -a moves one thread" "$cli" set -p fifo $py
check "... so the policy has 1 task" test "$(policy_tasks fifo)" = 1
check "set -a moves every thread" "$cli" set -a -p fifo $py
check "... all $nthreads threads are on fifo" test "$(policy_tasks fifo)" = "$nthreads"
on=0
for t in /proc/$py/task/*; do
	"$cli" show "${t##*/}" | grep -q 'SCHED_SAAKM policy [0-9]* (fifo)' && on=$((on + 1))
done
check "... as show says for each" test "$on" = "$nthreads"
kill $py
wait $py 2>/dev/null	# reaped: none of its threads is left on fifo

tap_subtest "stats"
# three hogs and a ping-pong (wakeups) on fifo
for i in 1 2 3; do "$cli" run -p fifo sh -c 'while :; do :; done' & done
"$cli" run -p fifo perf bench sched pipe -l 2000000 >/dev/null 2>&1 &
# the hogs and both ends of the pipe: perf forks its second end a while
# after it starts (seconds on the debug kernel)
n=5
check "$n tasks on fifo" wait_for 60 fifo_tasks_are $n
sleep 2
check "stats --json parses, with wakeups and percentiles" \
	out_has "^fifo tasks=[0-9]+ .*wake_count=[1-9][0-9]* p50_us=[0-9.]+ p99_us=[0-9.]+ cpus=$(nproc) ejected=0" \
	sh -c "'$cli' stats --json fifo | $parse json"
check "stats --openmetrics parses (OpenMetrics and Prometheus parsers)" \
	out_has "^fifo tasks=[0-9]+ picks=[1-9][0-9]* .*wake_count=[1-9]" \
	sh -c "'$cli' stats --openmetrics | $parse openmetrics"
check "stats table" out_has "^fifo +[0-9]+ +enabled +[0-9]+ " "$cli" stats

tap_subtest "top"
# the picks/s top shows must lie between the rates stats gives over the
# frame before and the frame after (the hogs' rate is steady, the frames
# are 1 s)
picks() {
	"$cli" stats --json fifo >"$tmp/stats.json"
	_rc=$?
	[ $_rc = 0 ] || { diag "stats --json: exit status $_rc"; sed 's/^/# cpus: /' /proc/saakm/cpus; }
	/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["policies"][0]["picks"])' <"$tmp/stats.json"
}
tmux -L $sock new-session -d -s top -x 100 -y 30 "timeout 120 $cli top -d 1"
sleep 3
# The task count top shows must be the policy's, taken on either side of
# the capture; a task that joins or leaves in between (perf's processes
# come and go on a slow kernel) makes that attempt void: up to 5 attempts.
for _try in 1 2 3 4 5; do
	p0=$(picks); t0=$(date +%s.%N); n0=$(policy_tasks fifo)
	sleep 1.5
	tmux -L $sock capture-pane -p -t top >"$tmp/pane"
	sleep 1.5
	p1=$(picks); t1=$(date +%s.%N); n1=$(policy_tasks fifo)
	[ "$n0" = "$n1" ] && break
done
sed 's/^/# pane: /' "$tmp/pane" | head -8
row=$(grep -E '^fifo ' "$tmp/pane")
check "top shows fifo with its $n1 tasks" sh -c "[ '$n0' = '$n1' ] && echo '$row' | grep -qE '^fifo +[0-9]+ +enabled +$n1 '"
check "top shows a row per CPU" test "$(grep -cE '^  cpu [0-9]+' "$tmp/pane")" -ge "$(nproc)"
rate=$(echo "$row" | awk '{print $6}')
want=$(echo "$p0 $p1 $t0 $t1" | awk '{printf "%.1f", ($2 - $1) / ($4 - $3)}')
diag "top: $rate picks/s; stats over the same 3 s: $want picks/s"
check "top's picks/s within a factor 2 of stats' rate" \
	sh -c "echo '$rate $want' | awk '{exit !(\$1 > 0 && \$1 >= \$2 / 2 && \$1 <= \$2 * 2)}'"
tmux -L $sock send-keys -t top q
check "q quits" wait_for 5 sh -c "! tmux -L $sock has-session -t top 2>/dev/null"
tmux -L $sock new-session -d -s small -x 40 -y 5 "timeout 60 $cli top -d 0.5"
sleep 2
small_told() { tmux -L $sock capture-pane -p -J -t small | tr -d '\n' | grep -q 'needs at least'; }
check "a small terminal is told so" small_told
tmux -L $sock kill-session -t small 2>/dev/null
check "no SaaKM error in the kernel log" saakm_log_clean
done_testing
