#!/bin/sh
# 'saakm switch A B' and the races of a live upgrade.
#
# 1. Switch: four tasks move from fifo to upfifo and back; one that upfifo
#    refuses (its refuse=PID) goes to SCHED_NORMAL and is reported; a
#    switch to a policy that is not loaded, or from or to an ejected one,
#    moves nothing.
# 2. Races, RACES rounds each (5, 3 on the debug kernel; 50 in make
#    test-full), where one side must win cleanly and no task
#    be lost (each ends on SCHED_SAAKM with the live id, or on
#    SCHED_NORMAL after a drain): an upgrade against rmmod of the old
#    version, an upgrade against an ejection, a switch against an upgrade.
# saakm-test: timeout=300
. "$(dirname "$0")/lib.sh"

ko_dir=$SAAKM_ROOT/tests/modules/saakm_upfifo
v1=$ko_dir/saakm_upfifo1.ko
v2=$ko_dir/saakm_upfifo2.ko
fifo=$SAAKM_ROOT/policies/fifo/saakm_fifo.ko
tmp=$(mktemp -d)
RACES=$(tier_size SAAKM_RACES 5 50)
# the debug kernel is 2 to 3 times slower: fewer rounds in make test
debug_pass && [ -z "${SAAKM_RACES:-}" ] && [ "${SAAKM_FULL:-0}" != 1 ] && RACES=3

if [ ! -x "$SAAKM_CLI" ] || [ ! -f "$v1" ] || [ ! -f "$fifo" ]; then
	not_ok "the saakm CLI, fifo and upfifo are built" "make tools modules"
	done_testing
fi

# on ID PID...: true if every PID is on SCHED_SAAKM with policy ID
on() {
	_id=$1; shift
	_out=$("$SAAKM_CLI" show "$@" 2>&1)
	[ "$(echo "$_out" | grep -c "SCHED_SAAKM policy $_id ")" = $# ] ||
		{ echo "$_out"; return 1; }
}

# accounted PID...: every PID is on live upfifo, or on SCHED_NORMAL
accounted() {
	_id=$("$SAAKM_CLI" get policies upfifo id 2>/dev/null)
	for _p in "$@"; do
		_l=$("$SAAKM_CLI" show "$_p" 2>&1)
		case $_l in
		*"SCHED_SAAKM policy $_id "*) ;;
		*SCHED_OTHER* | *SCHED_NORMAL*) ;;
		*) echo "$_l"; return 1 ;;
		esac
	done
}

# spinners N POLICY: start N tasks on POLICY that spin and sleep until
# $tmp/stop exists; their pids in $pids
spinners() {
	pids=
	_i=0
	while [ $_i -lt "$1" ]; do
		"$SAAKM_CLI" run -p "$2" -- sh -c "while [ ! -e $tmp/stop ]; do
			n=0; while [ \$n -lt 2000 ]; do n=\$((n + 1)); done; sleep 0.01; done" &
		pids="$pids $!"
		_i=$((_i + 1))
	done
}

stop_spinners() {
	touch "$tmp/stop"
	for _p in $pids; do wait "$_p"; done
	rm -f "$tmp/stop"
}

# end_round R: the end of race round R: every spinner on upfifo or
# SCHED_NORMAL (else $bad says which), the spinners stopped, and every
# upfifo module unloaded, newest first (a replaced one only leaves)
end_round() {
	accounted $pids >"$tmp/acc" || bad="round $1: $(cat "$tmp/acc")"
	stop_spinners
	for _m in $(cut -d' ' -f1 /proc/modules | grep '^saakm_upfifo'); do
		rmmod "$_m"
	done
}

tap_subtest "switch"
check "insmod saakm_fifo" insmod "$fifo"
check "insmod saakm_upfifo1" insmod "$v1"
fid=$("$SAAKM_CLI" get policies fifo id)
uid=$("$SAAKM_CLI" get policies upfifo id)
spinners 4 fifo
wait_for 30 on "$fid" $pids
check "saakm switch fifo upfifo" "$SAAKM_CLI" switch fifo upfifo
check "the four tasks are on upfifo" on "$uid" $pids
check "fifo has no task left" test "$("$SAAKM_CLI" get policies fifo tasks)" = 0
check "saakm switch upfifo fifo" "$SAAKM_CLI" switch upfifo fifo
check "they are back on fifo" on "$fid" $pids
set -- $pids
echo "$1" >/sys/module/saakm_upfifo1/parameters/refuse
check_not "a switch with one task refused fails" sh -c "'$SAAKM_CLI' switch fifo upfifo >$tmp/sw.out 2>&1"
check "it names the task" grep -q "task $1 refused" "$tmp/sw.out"
check "the refused task is on SCHED_NORMAL" sh -c "'$SAAKM_CLI' show $1 | grep -q SCHED_OTHER"
shift
check "the others moved" on "$uid" "$@"
echo 0 >/sys/module/saakm_upfifo1/parameters/refuse
check_not "a switch to a policy not loaded is refused" "$SAAKM_CLI" switch upfifo nosuch
check "and moves nothing" on "$uid" "$@"
echo 1 >/sys/module/saakm_upfifo1/parameters/eject
check "upfifo is ejected" wait_for 30 sh -c "test \"\$($SAAKM_CLI get policies upfifo state)\" = ejected"
check_not "a switch from an ejected policy is refused" "$SAAKM_CLI" switch upfifo fifo
check_not "a switch to an ejected policy is refused" "$SAAKM_CLI" switch fifo upfifo
stop_spinners
check "rmmod saakm_upfifo1" rmmod saakm_upfifo1
check "rmmod saakm_fifo" rmmod saakm_fifo

tap_subtest "an upgrade races rmmod of the old version"
bad=
r=0
while [ $r -lt "$RACES" ] && [ -z "$bad" ]; do
	"$SAAKM_CLI" get policies upfifo id >/dev/null 2>&1 || insmod "$v1"
	old=$("$SAAKM_CLI" get policies upfifo module)
	new=$v2
	[ "$old" = saakm_upfifo2 ] && new=$v1
	spinners 3 upfifo
	wait_for 30 accounted $pids
	rmmod "$old" 2>/dev/null &
	insmod "$new" 2>/dev/null
	wait $!
	end_round $r
	r=$((r + 1))
done
[ -z "$bad" ] && ok "$RACES rounds: every task on upfifo or SCHED_NORMAL, nothing stuck" ||
	not_ok "$RACES rounds: every task on upfifo or SCHED_NORMAL, nothing stuck" "$bad"
check "no upfifo module left" sh -c "! grep -q '^saakm_upfifo' /proc/modules"

tap_subtest "an upgrade races an ejection"
bad=
r=0
while [ $r -lt "$RACES" ] && [ -z "$bad" ]; do
	insmod "$v1"
	spinners 3 upfifo
	wait_for 30 accounted $pids
	echo 1 >/sys/module/saakm_upfifo1/parameters/eject
	insmod "$v2" 2>/dev/null
	st=$(policy_state upfifo)
	case $st in
	enabled | ejected) ;;
	*) bad="round $r: state '$st'" ;;
	esac
	# an ejected policy drains its tasks to SCHED_NORMAL
	[ "$st" = ejected ] && wait_for 30 test "$(policy_tasks upfifo)" = 0
	end_round $r
	r=$((r + 1))
done
[ -z "$bad" ] && ok "$RACES rounds: the policy ends enabled or ejected, no task lost" ||
	not_ok "$RACES rounds: the policy ends enabled or ejected, no task lost" "$bad"

tap_subtest "a switch races an upgrade"
check "insmod saakm_fifo" insmod "$fifo"
fid=$("$SAAKM_CLI" get policies fifo id)
bad=
r=0
while [ $r -lt "$RACES" ] && [ -z "$bad" ]; do
	insmod "$v1"
	spinners 4 upfifo
	wait_for 30 accounted $pids
	"$SAAKM_CLI" switch upfifo fifo >"$tmp/sw.out" 2>&1 &
	"$SAAKM_CLI" upgrade "$v2" >"$tmp/up.out" 2>&1
	wait $! || bad="round $r: switch: $(cat "$tmp/sw.out")"
	grep -q upgraded "$tmp/up.out" || bad="round $r: upgrade: $(cat "$tmp/up.out")"
	on "$fid" $pids >"$tmp/acc" || bad="round $r: $(cat "$tmp/acc")"
	stop_spinners
	rmmod saakm_upfifo2
	r=$((r + 1))
done
[ -z "$bad" ] && ok "$RACES rounds: the upgrade done and every task on fifo" ||
	not_ok "$RACES rounds: the upgrade done and every task on fifo" "$bad"
check "rmmod saakm_fifo" rmmod saakm_fifo
log_since_start | grep -E 'WARNING|BUG:|lockdep' >"$tmp/warn"
check "no kernel warning" test ! -s "$tmp/warn"
done_testing
