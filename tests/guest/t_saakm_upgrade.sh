#!/bin/sh
# Live upgrade. The test policy upfifo is built as two versions,
# saakm_upfifo1.ko (20 ms slices) and saakm_upfifo2.ko (5 ms), which hand
# over their runqueues, a count of picks, and each task's data (a pick
# counter and a tag; a task found without its own data ejects the policy).
#
# 1. While hackbench runs in a loop and four long tasks spin and sleep on
#    upfifo, 'saakm upgrade' replaces it UPGRADES times, back and forth,
#    unloading the old module each time. Every upgrade must keep the id,
#    bump the generation, keep the count of picks, and leave the four tasks
#    on SCHED_SAAKM with that id; no hackbench may fail and nothing may be
#    ejected.
# 2. Refusals leave the running version untouched: an import that fails,
#    and an old version whose format the new one cannot read.
# 3. A new version that adopts nothing: the class places the READY tasks.
# 4. A recording that spans an upgrade stops there, says so, and replays
#    against the old version's source.
# 5. An ejected policy cannot be upgraded.
# saakm-test: timeout=300
. "$(dirname "$0")/lib.sh"

ko_dir=$SAAKM_ROOT/tests/modules/saakm_upfifo
v1=$ko_dir/saakm_upfifo1.ko
v2=$ko_dir/saakm_upfifo2.ko
tmp=$(mktemp -d)
UPGRADES=$(tier_size SAAKM_UPGRADES 100 1000)

if [ ! -x "$SAAKM_CLI" ] || [ ! -f "$v1" ] || [ ! -f "$v2" ]; then
	not_ok "the saakm CLI and the upfifo modules are built" "make tools modules"
	done_testing
fi

# pget KEY: field KEY of upfifo in /proc/saakm/policies
pget() { "$SAAKM_CLI" get policies upfifo "$1" 2>/dev/null; }

# live_picks: the pick count of the version that runs upfifo now
live_picks() { cat "/sys/module/$(pget module)/parameters/picks"; }

# other: the module file of the version that does not run upfifo now
other() { [ "$(pget module)" = saakm_upfifo1 ] && echo "$v2" || echo "$v1"; }

# on_upfifo PID...: true if every PID is on SCHED_SAAKM with upfifo's id
on_upfifo() {
	_out=$("$SAAKM_CLI" show "$@" 2>&1)
	[ "$(echo "$_out" | grep -c "SCHED_SAAKM policy $id ")" = $# ] ||
		{ echo "$_out"; return 1; }
}

# upgrade FILE [PARAMS]: saakm upgrade; its output in $tmp/up.out
upgrade() { "$SAAKM_CLI" upgrade "$@" >"$tmp/up.out" 2>&1; }

# start_tasks N SLEEP: N tasks on upfifo that spin, and sleep SLEEP
# seconds between rounds (0: never), until stop_tasks; their pids in $pids
start_tasks() {
	rm -f "$tmp/stop"
	pids=
	_i=0
	while [ $_i -lt "$1" ]; do
		"$SAAKM_CLI" run -p upfifo -- sh -c "while [ ! -e $tmp/stop ]; do
			n=0; while [ \$n -lt 3000 ]; do n=\$((n + 1)); done
			[ $2 = 0 ] || sleep $2; done" &
		pids="$pids $!"
		_i=$((_i + 1))
	done
	check "$1 tasks joined upfifo (id $id)" wait_for 30 on_upfifo $pids
}

stop_tasks() {
	touch "$tmp/stop"
	for _p in $pids; do wait "$_p"; done
}

# lap: say how long the subtest that ends took
lap_t0=$(date +%s)
lap() {
	diag "took $(($(date +%s) - lap_t0)) s"
	lap_t0=$(date +%s)
}

tap_subtest "back and forth under load"
check "insmod saakm_upfifo1" insmod "$v1"
id=$(pget id)
start_tasks 4 0.01
"$SAAKM_CLI" run -p upfifo -- sh -c "while [ ! -e $tmp/stop ]; do
	if hackbench -g 2 -l 50 >/dev/null 2>&1; then echo ok; else echo fail; fi >>$tmp/hb
	done" &
hb=$!
wait_for 30 on_upfifo $pids $hb
check "the tasks joined upfifo (id $id)" on_upfifo $pids $hb

bad=
picks=$(live_picks)
i=1
while [ $i -le "$UPGRADES" ]; do
	if ! upgrade "$(other)"; then
		bad="upgrade $i: $(cat "$tmp/up.out")"
		break
	fi
	# the checks cost a few programs each: every tenth upgrade, and the last
	if [ $((i % 10)) = 0 ] || [ $i = "$UPGRADES" ]; then
		if [ "$(pget id)" != "$id" ] || [ "$(pget generation)" != "$i" ]; then
			bad="upgrade $i: id $(pget id) generation $(pget generation)"
			break
		fi
		now=$(live_picks)
		if [ "$now" -lt "$picks" ]; then
			bad="upgrade $i: the pick count went back from $picks to $now"
			break
		fi
		picks=$now
		if ! on_upfifo $pids $hb >"$tmp/show"; then
			bad="upgrade $i: $(cat "$tmp/show")"
			break
		fi
	fi
	i=$((i + 1))
done
[ -z "$bad" ] && ok "$UPGRADES upgrades kept the id, the tasks and the count" ||
	not_ok "$UPGRADES upgrades kept the id, the tasks and the count" "$bad"
diag "last upgrade: $(cat "$tmp/up.out" | head -1)"
check "the old versions' modules were unloaded" \
	test "$(grep -c '^saakm_upfifo' /proc/modules)" = 1
stop_tasks
wait_for 60 sh -c "! kill -0 $hb"
check "hackbench ran, and never failed" \
	sh -c "grep -q ok $tmp/hb && ! grep -q fail $tmp/hb"
check "upfifo is still enabled" test "$(policy_state upfifo)" = enabled
check "nothing was ejected" test -z "$(policy_error upfifo)"

lap
tap_subtest "refused upgrades leave the running version untouched"
start_tasks 2 0.01
gen=$(pget generation)
mod=$(pget module)
check_not "an import that fails is refused" upgrade "$(other)" import_fail=1
check "the kernel's reason is shown" grep -q "upgrade_import() refused (-12)" "$tmp/up.out"
check "the old version runs on" \
	test "$(pget generation) $(pget module)" = "$gen $mod"
check "its tasks are where they were" on_upfifo $pids
check "an upgrade to a version declaring format 7 is taken" upgrade "$(other)" format=7
gen=$(pget generation)
mod=$(pget module)
check_not "a version that cannot read format 7 is refused" upgrade "$(other)"
check "the kernel's reason is shown" grep -q "upgrade_import() refused (-71)" "$tmp/up.out"
check "the format-7 version runs on" \
	test "$(pget generation) $(pget module)" = "$gen $mod"
check "its tasks are where they were" on_upfifo $pids
stop_tasks

lap
tap_subtest "a new version that adopts nothing"
check "rmmod the format-7 version" rmmod "$mod"
check "insmod saakm_upfifo1" insmod "$v1"
id=$(pget id)
start_tasks 4 0
n=0
while [ $n -lt 5 ] && upgrade "$(other)" adopt=0; do
	n=$((n + 1))
done
check "five upgrades that let the class place the READY tasks" test "$n" = 5
check "the tasks stay on upfifo" on_upfifo $pids
sleep 1
check "and run: picks go on" sh -c "p=\$(cat /sys/module/$(pget module)/parameters/picks); sleep 0.5;
	test \$(cat /sys/module/$(pget module)/parameters/picks) -gt \$p"
check "nothing was ejected" test -z "$(policy_error upfifo)"
stop_tasks

lap
tap_subtest "a recording across an upgrade"
rmmod "$(pget module)"
insmod "$v1"
id=$(pget id)
export XDG_CACHE_HOME=$tmp/cache
replay_cache_init
"$SAAKM_CLI" record -p upfifo -o "$tmp/up.rec" -- sh -c "
	n=0; while [ \$n -lt 20000 ]; do n=\$((n + 1)); done
	'$SAAKM_CLI' upgrade '$v2' >/dev/null
	n=0; while [ \$n -lt 20000 ]; do n=\$((n + 1)); done" >"$tmp/rec.out" 2>&1
sed 's/^/# /' "$tmp/rec.out"
check "saakm record says the recording stops at the upgrade" grep -q "upgraded live" "$tmp/rec.out"
nrec=$(sed -n 's/.* \([0-9][0-9]*\) records.*/\1/p' "$tmp/rec.out" | head -1)
replay_matches "$tmp/up.rec" "$ko_dir/saakm_upfifo1.c" "$nrec" \
	"the recording replays against version 1's source" upgrade

lap
tap_subtest "an ejected policy is not upgraded"
start_tasks 2 0.01
echo 1 >"/sys/module/$(pget module)/parameters/eject"
check "upfifo is ejected" wait_for 30 sh -c "test \"\$($SAAKM_CLI get policies upfifo state)\" = ejected"
check_not "the upgrade is refused" upgrade "$(other)"
check "with the reason" grep -q "ejected or going away" "$tmp/up.out"
stop_tasks
check "rmmod upfifo" rmmod "$(pget module)"
lap
log_since_start | grep -E 'WARNING|BUG:|lockdep' >"$tmp/warn"
check "no kernel warning" test ! -s "$tmp/warn"
done_testing
