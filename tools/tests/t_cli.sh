#!/bin/bash
# Host test of the saakm CLI: usage errors (exit 2), the "no SaaKM kernel"
# message, and list/events/cpus/get/set/run/show against fixture files
# (SAAKM_PROC). Needs no SaaKM kernel. Usage: t_cli.sh SAAKM_BINARY.
# Prints TAP (tests/guest/tap.sh).
set -u
saakm=$1
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/fixtures
. "$here/../../tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nokernel="saakm: this kernel has no SaaKM support \\(/proc/saakm is missing\\)"

# expect DESC STATUS REGEX [ENV=VAL...] -- ARGS...: run saakm, check status and output
expect() {
	local desc=$1 status=$2 re=$3 envs=() out rc
	shift 3
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	out=$(env "${envs[@]}" "$saakm" "$@" 2>&1)
	rc=$?
	if [ "$rc" != "$status" ]; then
		not_ok "$desc" "exit status $rc, expected $status"
	elif [ -n "$re" ] && ! grep -qE -- "$re" <<<"$out"; then
		not_ok "$desc" "output lacks /$re/"
	else
		ok "$desc"
		return
	fi
	sed 's/^/#   /' <<<"$out"
}
B=SAAKM_PROC=$fx/basic

expect "no command: usage error" 2 "^usage: saakm list" --
expect "unknown command: usage error" 2 "unknown command 'bogus'" -- bogus
expect "help: exit 0 with usage" 0 "saakm run -p NAME" -- help
expect "-h: exit 0" 0 "CAP_SYS_NICE" -- -h
expect "run without -p: usage error" 2 "run needs a policy" -- run true
expect "run without command: usage error" 2 "run needs a command" $B -- run -p fifo
expect "set without PID: usage error" 2 "set needs at least one PID" $B -- set -p fifo
expect "set with a bad PID: usage error" 2 "bad PID 'abc'" $B -- set -p fifo abc
expect "run with a bad nice: usage error" 2 "bad nice value '99'" $B -- run -p fifo -n 99 true
expect "run with an unknown option: usage error" 2 "usage:" $B -- run -p fifo --bogus true
expect "show without PID: usage error" 2 "show needs at least one PID" -- show
expect "list with arguments: usage error" 2 "list takes no arguments" -- list x
expect "events with two names: usage error" 2 "at most one" -- events a b

# With exactly one policy loaded, an unknown name must not resolve to it.
expect "set: unknown name with a single policy loaded" 1 "no policy 'nope' is loaded" \
	SAAKM_PROC=$fx/single -- set -p nope $$
expect "list: no SaaKM kernel message" 1 "^$nokernel\$" SAAKM_PROC=$tmp/none -- list
expect "run: no SaaKM kernel message" 1 "^$nokernel\$" SAAKM_PROC=$tmp/none -- run -p fifo -- touch "$tmp/ran"
if [ -e "$tmp/ran" ]; then not_ok "run: command not executed on failure"
else ok "run: command not executed on failure"; fi
expect "set: no SaaKM kernel message" 1 "^$nokernel\$" SAAKM_PROC=$tmp/none -- set -p 1 $$
expect "events: no SaaKM kernel message" 1 "^$nokernel\$" SAAKM_PROC=$tmp/none -- events
if [ -d /proc/saakm ]; then
	skip "list: real /proc/saakm missing" "this kernel has SaaKM"
	skip "set: kernel refuses VER2 attr" "this kernel has SaaKM"
else
	expect "list: real /proc/saakm missing" 1 "^$nokernel\$" -- list
	expect "set: kernel without SaaKM detected after lookup" 1 "^saakm: $$: this kernel has no SaaKM" $B -- set -p fifo $$
fi

expect "list: table header" 0 "^ID +NAME +TASKS +STATE +SLOT +BALANCE_MS +TIMEOUT_MS +UNPRIVILEGED$" $B -- list
expect "list: policy row" 0 "^1 +fifo +3 +enabled +0 +0 +5000 +no$" $B -- list
expect "list: unprivileged policy row" 0 "^2 +rr_test +0 +disabling +1 +10 +0 +yes$" $B -- list
expect "list: ejected kind and reason" 0 "^ejected: broken \(stall\): task 42 \(spin\) ready for 5004 ms" $B -- list
expect "list: note when none loaded" 0 "no SaaKM policy is loaded" SAAKM_PROC=$fx/empty -- list
expect "run: unknown policy message" 1 "^saakm: no policy 'nosuch' is loaded \(see 'saakm list'\)$" $B -- run -p nosuch -- true
expect "set: unknown policy id message" 1 "^saakm: no policy '99' is loaded" $B -- set -p 99 1
expect "events NAME: one event per line" 0 "^schedule +42$" $B -- events fifo
expect "events NAME: bad_transitions" 0 "^bad_transitions +2$" $B -- events rr_test
expect "events: policy headers" 0 "^rr_test$" $B -- events
expect "events: indented events" 0 "^  unblock_place +5$" $B -- events
expect "events: unknown policy" 1 "no policy 'nosuch' is loaded" $B -- events nosuch
expect "events: every counter of SAAKM_EVENTS" 0 "^  migrated +3$" $B -- events
expect "cpus: table" 0 "^1 +fifo +1 +1 +99$" $B -- cpus
expect "cpus NAME: only that policy" 0 "^0 +rr_test +0 +0 +7$" $B -- cpus rr_test
expect "cpus: unknown policy" 1 "no policy 'nosuch' is loaded" $B -- cpus nosuch
expect "get: one field" 0 "^enabled$" $B -- get policies fifo state
expect "get: a whole record as KEY=VALUE lines" 0 "^timeout_ms=5000$" $B -- get policies fifo
expect "get: reason with spaces" 0 "^task 42 \(spin\) ready for 5004 ms on cpu 1 without running$" $B -- get errors broken reason
expect "get: one line per CPU" 0 "^99$" $B -- get cpus fifo picks
expect "get: unknown policy" 1 "no policy 'nosuch' is loaded" $B -- get policies nosuch state
expect "get: unknown key" 1 "no key 'nokey' in policies of 'fifo'" $B -- get policies fifo nokey
expect "get: no error" 1 "policy 'fifo' has no error" $B -- get errors fifo
expect "get: unknown file is a usage error" 2 "unknown file 'bogus'" $B -- get bogus fifo
expect "get: no SaaKM kernel message" 1 "^$nokernel\$" SAAKM_PROC=$tmp/none -- get policies fifo
out=$(SAAKM_PROC=$fx/basic "$saakm" get policies fifo state 2>/dev/null)
[ "$out" = enabled ] && ok "get: only the value on stdout" || not_ok "get: only the value on stdout" "got '$out'"
expect "show: SCHED_OTHER self" 0 "^$$: SCHED_(OTHER|BATCH|IDLE)" -- show $$
expect "show: bad PID is ESRCH" 1 "^saakm: 4194305: no such process$" -- show 4194305
expect "set: bad PID is ESRCH" 1 "^saakm: 4194305: no such process$" $B -- set -p fifo 4194305
head -c 5000 /dev/zero >"$tmp/big"
expect "run: too large blob is E2BIG" 1 "blob too large \(at most 4096 bytes\)" $B -- run -p fifo --attr "$tmp/big" -- true
expect "run: missing blob file" 1 "saakm: $tmp/nofile: No such file" $B -- run -p fifo --attr "$tmp/nofile" true

# Every verb: --help exits 0 with its synopsis; the man page lists it.
for v in $("$saakm" help --verbs); do
	expect "$v --help: its synopsis" 0 "^usage: saakm $v" -- "$v" --help
done
expect "help VERB" 0 "^usage: saakm top" -- help top
expect "help: unknown verb" 2 "unknown verb 'nope'" -- help nope
expect "--version" 0 "^saakm [0-9]+\.[0-9]+" -- --version
expect "man page: every verb" 0 '^.fBsaakm param.fR' -- help --man
expect "usage error names the verb's help" 2 "Run 'saakm stats --help'" -- stats --bogus

# No SaaKM kernel: every verb that reads the kernel says so.
for args in "stats" "top -n 1 -d 0.1" "load fifo" "unload fifo" "param fifo" "cpus"; do
	expect "${args%% *}: no SaaKM kernel message" 1 "^$nokernel\$" SAAKM_PROC=$tmp/none -- $args
done

# load / unload / param: what can be judged without a kernel
expect "load: no name" 2 "load needs a policy name" -- load
expect "load: not a name" 2 "'9x' is not a policy name" -- load 9x
expect "load: already loaded" 1 "policy 'fifo' is already loaded" $B -- load fifo
expect "load: unknown module lists the policies" 1 "no module for policy 'nosuch'; there are:.* fifo" \
	SAAKM_PROC=$fx/empty -- load nosuch
expect "load: bad parameter syntax" 2 "bad parameter '=1'" SAAKM_PROC=$fx/empty -- load fifo =1
expect "unload: not loaded" 1 "no policy 'nosuch' is loaded" $B -- unload nosuch
expect "unload: built-in policy" 1 "policy 'rr_test' is built into the kernel" $B -- unload rr_test
expect "param: not loaded" 1 "no policy 'nosuch' is loaded" $B -- param nosuch
expect "set -a: every thread, each reported" 1 "^saakm: [0-9]+ \(thread of $$\): " $B -- set -a -p fifo $$
expect "set -a: no such process" 1 "4194305: no such process" $B -- set -a -p fifo 4194305

# stats: the table, JSON and OpenMetrics of the fixture, through real parsers
expect "stats: table row with percentiles" 0 "^fifo +1 +enabled +3 +4 +1333 +8 +12us +3994us$" $B -- stats
expect "stats: ejection reason" 0 "^  ejected \(stall\): task 42" $B -- stats
expect "stats NAME: unknown" 1 "no policy 'nosuch' is loaded" $B -- stats nosuch
expect "stats: two formats" 2 "exclude each other" $B -- stats --json --openmetrics
out=$(SAAKM_PROC=$fx/basic "$saakm" stats --json fifo | "$here/parse_stats.py" json 2>&1)
if grep -qx "fifo tasks=3 picks=1333 migrations=8 wake_count=105 p50_us=12.25 p99_us=3993.6 cpus=2 ejected=0" <<<"$out"; then
	ok "stats --json: parsed, figures and percentiles"
else
	not_ok "stats --json: parsed, figures and percentiles" "$out"
fi
out=$(SAAKM_PROC=$fx/basic "$saakm" stats --openmetrics | "$here/parse_stats.py" openmetrics 2>&1)
if grep -qx "fifo tasks=3 picks=1333 migrations=8 wake_count=105 cpus=2" <<<"$out" &&
   grep -qx "broken tasks=0 picks=0 migrations=0 wake_count=0 cpus=2" <<<"$out"; then
	ok "stats --openmetrics: parsed by the OpenMetrics and Prometheus parsers"
else
	not_ok "stats --openmetrics: parsed by the OpenMetrics and Prometheus parsers" "$out"
fi
expect "stats: kernel without the wake fields" 0 "^rr_test +2 +disabling +0 +0 +7 +0 +- +-$" $B -- stats
expect "top -n 2: two frames" 0 "rates over 0\.1 s" $B -- top -n 2 -d 0.1
expect "top: bad refresh" 2 "bad refresh '0'" $B -- top -d 0
expect "top: no policy loaded" 0 "no SaaKM policy is loaded" SAAKM_PROC=$fx/empty -- top -n 1 -d 0.1

done_testing
