#!/bin/bash
# Host test of saakm-loader against a fake saakm CLI (given through $SAAKM)
# that simulates a policy: ejected after a few polls for its first N loads,
# or unloaded behind the loader's back, or refusing a load, or busy on
# unload; it logs every load and unload with a time stamp. Checks the start
# line, the logged ejections, unload then reload each time, the doubling
# and capped backoff, giving up with status 3, status 1 on a refused load,
# status 0 when the policy disappears or on SIGTERM, and the configuration
# errors (status 2, FILE:LINE). Needs no SaaKM kernel.
# Usage: t_loader.sh [SAAKM_BINARY] (the real CLI, for --version only).
# Prints TAP (tests/guest/tap.sh).
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
real_saakm=${1:-$root/build/tools/saakm}
loader=$root/tools/saakm-loader
. "$root/tests/guest/tap.sh"
tmp=$(mktemp -d)
pids=		# the loaders started in the background
cleanup() {
	local p
	for p in $pids; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# --- the fake saakm ------------------------------------------------------------
# State in $FAKE_DIR: state (enabled/ejected; absent: not loaded), loads
# (how many loads so far), polls (state reads since the last load), busy
# (unloads still to refuse), calls (the log: "TIME VERB ARGS..." for load
# and unload). Knobs (environment): FAKE_EJECTIONS (the first N loads end
# ejected, default 0), FAKE_EJECT_POLLS (after this many state reads,
# default 2), FAKE_VANISH_POLLS (the policy disappears, with no ejection,
# after this many state reads), FAKE_LOAD_FAIL (a load is refused),
# FAKE_BUSY (the first N unloads fail).
cat >"$tmp/saakm" <<'EOF'
#!/bin/bash
set -u
[ "$1" = --version ] && { echo "saakm 9.9.9-fake"; exit 0; }
d=$FAKE_DIR
num() { cat "$d/$1" 2>/dev/null || echo 0; }
absent() { echo "saakm: no policy '$1' is loaded (see 'saakm list')" >&2; exit 1; }
case $1 in
load | unload) echo "$EPOCHREALTIME $*" >>"$d/calls" ;;
esac
case $1 in
load)
	if [ -n "${FAKE_LOAD_FAIL:-}" ]; then
		echo "saakm: policy $2 has no parameter 'bogus' (its parameters: slice_ms)" >&2
		exit 2
	fi
	[ -e "$d/state" ] && { echo "saakm: policy '$2' is already loaded" >&2; exit 1; }
	echo $(($(num loads) + 1)) >"$d/loads"
	echo 0 >"$d/polls"
	echo enabled >"$d/state"
	echo "loaded policy $2 (id $(num loads)) from /fake/saakm_$2.ko" ;;
unload)
	[ -e "$d/state" ] || absent "$2"
	if [ "$(num busy)" -lt "${FAKE_BUSY:-0}" ]; then
		echo $(($(num busy) + 1)) >"$d/busy"
		echo "saakm: unloading saakm_$2: in use (another module or a reference holds it)" >&2
		exit 1
	fi
	rm -f "$d/state"
	echo "unloaded policy $2 (module saakm_$2)" ;;
get)
	[ -e "$d/state" ] || absent "$3"
	case $2 in
	policies)
		polls=$(($(num polls) + 1))
		echo "$polls" >"$d/polls"
		if [ -n "${FAKE_VANISH_POLLS:-}" ] && [ "$polls" -ge "$FAKE_VANISH_POLLS" ]; then
			rm -f "$d/state"
			absent "$3"
		fi
		if [ "$(num loads)" -le "${FAKE_EJECTIONS:-0}" ] && [ "$polls" -ge "${FAKE_EJECT_POLLS:-2}" ]; then
			echo ejected >"$d/state"
		fi
		cat "$d/state" ;;
	errors)
		[ "$(cat "$d/state")" = ejected ] || { echo "saakm: policy '$3' has no error" >&2; exit 1; }
		case $4 in
		kind) echo stall ;;
		reason) echo "task 42 (spin) ready for 5004 ms on cpu 1 without running (load $(num loads))" ;;
		esac ;;
	esac ;;
*) echo "fake saakm: unexpected '$*'" >&2; exit 9 ;;
esac
EOF
chmod +x "$tmp/saakm"
export SAAKM=$tmp/saakm

# --- helpers -----------------------------------------------------------------------
n=0		# the current case: its files are $tmp/N.*
# newcase CONFIG_TEXT: a fresh fake policy and config file $conf; $log is
# where the loader's output goes, $calls the fake's call log
newcase() {
	n=$((n + 1))
	export FAKE_DIR=$tmp/$n.fake
	mkdir -p "$FAKE_DIR"
	: >"$FAKE_DIR/calls"
	conf=$tmp/$n.conf
	log=$tmp/$n.log
	calls=$FAKE_DIR/calls
	printf '%s\n' "$1" >"$conf"
}

# run_loader [ENV=VAL...]: run the loader on $conf (at most 20 s), its
# output in $log, its exit status in $rc
run_loader() {
	env "$@" timeout 20 "$loader" -c "$conf" >"$log" 2>&1
	rc=$?
}

# events: the loader's log as letters: S start, L loaded, E ejected,
# U unloaded, B busy unload, R reloading after a backoff, G giving up,
# D disappeared, T signal
events() {
	sed -n -e 's/^saakm-loader: keeping policy .*/S/p' -e 's/^saakm-loader: loaded policy .*/L/p' \
		-e 's/^saakm-loader: policy [a-z]* ejected: .*/E/p' -e 's/^saakm-loader: unloaded policy .*/U/p' \
		-e 's/^saakm-loader: unloading policy .* failed, trying again.*/B/p' \
		-e 's/^saakm-loader: reloading policy .*/R/p' -e 's/^saakm-loader: giving up: .*/G/p' \
		-e 's/^saakm-loader: policy .* was unloaded without an ejection.*/D/p' \
		-e 's/^saakm-loader: SIG[A-Z]*: .*/T/p' "$log" | tr -d '\n'
}

# verbs: the fake's calls, verb only, on one line ("load unload load")
verbs() { awk '{ printf "%s%s", (NR > 1 ? " " : ""), $2 } END { print "" }' "$calls"; }

# expect_rc DESC STATUS: ok if the last run exited with STATUS
expect_rc() {
	if [ "$rc" = "$2" ]; then ok "$1"; else not_ok "$1" "exit status $rc, expected $2"; show_log; fi
}

# logged DESC REGEX: ok if a line of $log matches REGEX (extended)
logged() {
	if grep -qE -- "$2" "$log"; then ok "$1"; else not_ok "$1" "no line matches /$2/"; show_log; fi
}

# not_logged DESC REGEX: ok if no line of $log matches REGEX
not_logged() {
	if ! grep -qE -- "$2" "$log"; then ok "$1"; else not_ok "$1" "a line matches /$2/"; show_log; fi
}

# same DESC GOT WANT
same() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got '$2', expected '$3'"; fi
}

show_log() { sed 's/^/#   /' "$log" | head -30; }

# wait_line FILE REGEX: wait (at most 10 s) for a line of FILE to match REGEX
wait_line() {
	local i
	for ((i = 0; i < 200; i++)); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# wait_exit PID: wait (at most 5 s) for PID to exit; its status in $rc
# (999 if it did not exit: then it is killed)
wait_exit() {
	local i
	for ((i = 0; i < 100; i++)); do
		if ! kill -0 "$1" 2>/dev/null; then
			wait "$1"
			rc=$?
			return
		fi
		sleep 0.05
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	rc=999
}

fast="poll_ms = 20
window_minutes = 1"

tap_subtest "options"
out=$("$loader" --help 2>&1)
rc=$?
if [ "$rc" = 0 ] && grep -q "^usage: saakm-loader \[-c FILE\] \[--check\]" <<<"$out"; then
	ok "--help: usage, exit status 0"
else
	not_ok "--help: usage, exit status 0" "exit status $rc"
fi
same "--version: the fake saakm's version" "$("$loader" --version 2>&1)" "saakm-loader 9.9.9-fake"
if [ -x "$real_saakm" ]; then
	v=$("$real_saakm" --version)
	same "--version: the real saakm's version" "$(SAAKM=$real_saakm "$loader" --version 2>&1)" \
		"saakm-loader ${v#saakm }"
else
	skip "--version: the real saakm's version" "no $real_saakm"
fi
out=$("$loader" --bogus 2>&1)
rc=$?
same "an unknown option: exit status 2" "$rc" 2
newcase "policy = fifo   # the FIFO tutorial
params = slice_ms=5 other=x
max_ejections = 3
window_minutes = 5
backoff_initial_s = 0.5
backoff_max_s = 30
poll_ms = 100
full_mode = false"
out=$(SAAKM=/nonexistent "$loader" -c "$conf" --check 2>&1)
rc=$?
if [ "$rc" = 0 ] &&
	[ "$out" = "saakm-loader: $conf: OK: policy fifo, parameters: slice_ms=5 other=x; giving up after 3 ejections within 5 minutes, backoff 0.5 s doubling up to 30 s, polling every 100 ms" ]; then
	ok "--check: a good config, without running saakm"
else
	not_ok "--check: a good config, without running saakm" "exit status $rc, output: $out"
fi
if [ ! -s "$calls" ]; then ok "--check loads nothing"; else not_ok "--check loads nothing"; fi

tap_subtest "configuration errors"
# bad_config DESC LINE REGEX TEXT: --check on TEXT fails with status 2 and
# one line "saakm-loader: FILE:LINE: ..." matching REGEX (LINE empty: no line)
bad_config() {
	local out rc
	newcase "$4"
	out=$("$loader" -c "$conf" --check 2>&1)
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] &&
		grep -qE -- "^saakm-loader: $conf${2:+:$2}: $3" <<<"$out"; then
		ok "$1"
	else
		not_ok "$1" "exit status $rc, output: $out"
	fi
}
bad_config "an unknown key" 3 "unknown key 'polcy'" "# a comment

polcy = fifo"
bad_config "a line without =" 2 "expected 'key = value'" "policy = fifo
max_ejections 3"
bad_config "a bad max_ejections" 2 "max_ejections: 'zero' is not a whole number" "policy = fifo
max_ejections = zero"
bad_config "max_ejections = 0" 2 "max_ejections: '0'" "policy = fifo
max_ejections = 0"
bad_config "a negative backoff" 2 "backoff_initial_s: '-1' is not a positive number" "policy = fifo
backoff_initial_s = -1"
bad_config "a poll_ms with a unit" 2 "poll_ms: '500ms'" "policy = fifo
poll_ms = 500ms"
bad_config "backoff_max_s below backoff_initial_s" 3 "backoff_max_s is below backoff_initial_s" "policy = fifo
backoff_initial_s = 10
backoff_max_s = 5"
bad_config "a policy that is not a name" 1 "policy: 'fifo rr' is not a policy name" "policy = fifo rr"
bad_config "a parameter that is not KEY=VALUE" 2 "params: 'slice_ms' is not KEY=VALUE" "policy = fifo
params = a=1 slice_ms"
bad_config "a key set twice" 4 "policy is set twice \(first on line 1\)" "policy = fifo
poll_ms = 100

policy = rr"
bad_config "no policy" "" "no 'policy = NAME' line" "poll_ms = 100"
out=$("$loader" -c "$tmp/missing.conf" --check 2>&1)
rc=$?
if [ "$rc" = 2 ] && [ "$out" = "saakm-loader: $tmp/missing.conf: cannot read the configuration file (see 'saakm-loader --help')" ]; then
	ok "a missing file"
else
	not_ok "a missing file" "exit status $rc, output: $out"
fi
bad_config "the file is parsed, not run" 1 "policy: '\\\$\(touch " "policy = \$(touch $tmp/ran)"
if [ ! -e "$tmp/ran" ]; then ok "the command in it did not run"; else not_ok "the command in it did not run"; fi
bad_config "full_mode is refused" 2 "full_mode: this kernel/SaaKM version does not support a whole-system mode" \
	"policy = fifo
full_mode = true"
bad_config "cgroup is refused" 3 "cgroup: this kernel/SaaKM version does not support attaching a policy to a cgroup" \
	"policy = fifo

cgroup = /sys/fs/cgroup/batch"
newcase "policy = fifo
full_mode = 1"
run_loader
expect_rc "full_mode: the loader refuses to start (status 2)" 2
if [ ! -s "$calls" ]; then ok "full_mode: nothing loaded"; else not_ok "full_mode: nothing loaded"; fi

tap_subtest "refused load"
newcase "policy = fifo
params = bogus=1
$fast"
run_loader FAKE_LOAD_FAIL=1
expect_rc "exit status 1" 1
logged "saakm's message is logged" "^saakm-loader: +saakm: policy fifo has no parameter 'bogus'"
logged "the failure is logged" "^saakm-loader: loading policy fifo failed \('saakm load' exit status 2\)"
same "one load, no retry" "$(verbs)" "load"
if grep -qv '^saakm-loader: ' "$log"; then not_ok "every line is prefixed"; show_log; else ok "every line is prefixed"; fi

tap_subtest "ejections"
newcase "policy = fifo
params = slice_ms=5
max_ejections = 6
backoff_initial_s = 0.05
backoff_max_s = 0.2
$fast"
start=$EPOCHREALTIME
run_loader FAKE_EJECTIONS=100
expect_rc "gives up with exit status 3" 3
logged "the start line: policy, parameters, limits" \
	"^saakm-loader: keeping policy fifo loaded, parameters: slice_ms=5; giving up after 6 ejections within 1 minute, backoff 0.05 s doubling up to 0.2 s, polling every 20 ms"
same "load with the parameters" "$(awk 'NR == 1 { $1 = ""; print substr($0, 2) }' "$calls")" "load fifo slice_ms=5"
same "unload, then reload, after each ejection" "$(verbs)" \
	"load unload load unload load unload load unload load unload load unload"
same "the log: start, then loaded, ejected, unloaded, reloading... giving up" "$(events)" \
	"SLEURLEURLEURLEURLEURLEUG"
bad=
for i in 1 2 3 4 5 6; do
	grep -qx "saakm-loader: policy fifo ejected: stall: task 42 (spin) ready for 5004 ms on cpu 1 without running (load $i)" "$log" ||
		bad="$bad $i"
done
same "each ejection logged with its kind and reason" "${bad:-none missing}" "none missing"
same "the backoff doubles up to its cap" \
	"$(sed -n 's/^saakm-loader: reloading policy fifo in \([0-9.]*\) s (ejection \([0-9]\) of 6 within 1 minute)$/\2:\1/p' "$log" | paste -sd ' ')" \
	"1:0.05 2:0.1 3:0.2 4:0.2 5:0.2"
# from the fake's time stamps: each reload at least the backoff after the unload
gaps=$(awk '$2 == "unload" { u = $1 } $2 == "load" && u { printf "%s%d", (n++ ? " " : ""), ($1 - u) * 1000; u = 0 }' "$calls")
bad=
read -ra g <<<"$gaps"
want=(50 100 200 200 200)
for i in 0 1 2 3 4; do
	[ "${g[$i]:-0}" -ge "${want[$i]}" ] || bad="$bad ${g[$i]:-none}<${want[$i]}"
done
same "the waits between unload and reload, in ms ($gaps)" "${bad:-all long enough}" "all long enough"
logged "the giving-up message" \
	"^saakm-loader: giving up: 6 ejections in 1 minute; last: stall: task 42 \(spin\) ready for 5004 ms on cpu 1 without running \(load 6\)$"
if [ ! -e "$FAKE_DIR/state" ]; then ok "the policy is not left loaded"; else not_ok "the policy is not left loaded"; fi
if grep -qv '^saakm-loader: ' "$log"; then not_ok "every line is prefixed"; show_log; else ok "every line is prefixed"; fi
diag "the whole run took $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"

newcase "policy = fifo
max_ejections = 1
$fast"
run_loader FAKE_EJECTIONS=100
expect_rc "max_ejections = 1: gives up at the first" 3
same "max_ejections = 1: load, unload" "$(verbs)" "load unload"

tap_subtest "recovery, busy module, then unloaded by someone else"
newcase "policy = fifo
max_ejections = 3
backoff_initial_s = 0.01
$fast"
run_loader FAKE_EJECTIONS=2 FAKE_BUSY=2 FAKE_VANISH_POLLS=8
expect_rc "exit status 0 when the policy disappears" 0
logged "the disappearance is logged" "^saakm-loader: policy fifo was unloaded without an ejection \(saakm unload or rmmod\): exiting$"
same "two ejections recovered; the busy unload tried again" "$(verbs)" "load unload unload unload load unload load"
same "the log: start, two recoveries, the disappearance" "$(events)" "SLEBURLEURLD"
logged "the busy unload is logged" "^saakm-loader: unloading policy fifo failed, trying again: saakm: unloading saakm_fifo: in use"
not_logged "no giving up below the limit" "^saakm-loader: giving up:"

newcase "policy = fifo
$fast"
run_loader FAKE_VANISH_POLLS=3
expect_rc "unloaded at once, never ejected: exit status 0" 0
same "unloaded at once, never ejected: one load" "$(verbs)" "load"

tap_subtest "left over"
newcase "policy = fifo
$fast"
echo ejected >"$FAKE_DIR/state"
run_loader FAKE_VANISH_POLLS=4
expect_rc "exit status 0" 0
logged "an ejected policy already loaded is unloaded first" \
	"^saakm-loader: policy fifo is loaded but ejected \(stall: .*\): unloading it first$"
same "then loaded" "$(verbs)" "unload load"

tap_subtest "SIGTERM"
newcase "policy = fifo
$fast"
"$loader" -c "$conf" >"$log" 2>&1 &
pid=$!
pids="$pids $pid"
if wait_line "$calls" " load fifo" && wait_line "$log" "^saakm-loader: loaded policy fifo"; then
	sleep 0.2
	kill -TERM "$pid"
	wait_exit "$pid"
	expect_rc "while watching: exit status 0" 0
	same "while watching: the policy is unloaded" "$(verbs)" "load unload"
	logged "while watching: logged" "^saakm-loader: SIGTERM: unloading policy fifo$"
	same "while watching: the log" "$(events)" "SLTU"
else
	not_ok "while watching: the loader loaded the policy"
	show_log
fi

newcase "policy = fifo
backoff_initial_s = 30
$fast"
FAKE_EJECTIONS=1 "$loader" -c "$conf" >"$log" 2>&1 &
pid=$!
pids="$pids $pid"
if wait_line "$log" "^saakm-loader: reloading policy fifo in 30 s"; then
	t0=$EPOCHREALTIME
	kill -TERM "$pid"
	wait_exit "$pid"
	expect_rc "during the backoff: exit status 0 at once" 0
	diag "it took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s"
	same "during the backoff: nothing more loaded" "$(verbs)" "load unload"
	logged "during the backoff: logged" "^saakm-loader: SIGTERM: exiting \(policy fifo is not loaded\)$"
else
	not_ok "during the backoff: the loader waits to reload"
	show_log
fi

done_testing
