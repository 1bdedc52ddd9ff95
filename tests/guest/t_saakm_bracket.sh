#!/bin/sh
# Per-CPU policy callbacks come only between core_entry and core_exit for
# that CPU, through: registering while another policy is loaded and busy
# (twice in make test, five times in make test-full), a cpuset partition
# that rebuilds root domains, and CPU hotplug cycles of CPU 1 (one; three). The probe policy counts every breach (a
# callback for a CPU it was not entered on, a second core_entry, core_exit
# with tasks still queued) in its bracket_violations parameter and WARNs on
# the first one.
# saakm-test: timeout=240
. "$(dirname "$0")/lib.sh"

saakm=$SAAKM_CLI
fifo_ko=$SAAKM_ROOT/policies/fifo/saakm_fifo.ko
probe_ko=$SAAKM_ROOT/tests/modules/saakm_probe/saakm_probe.ko
param=/sys/module/saakm_probe/parameters

# probe_count NAME: the probe's counter NAME, found by its position in the
# probe's "events" list (its counters follow SAAKM_EVENTS, then init, exit).
probe_count() {
	tr ',' '\n' <"$param/events" | grep -nx "$1" | cut -d: -f1 | {
		read -r _i && cut -d, -f"$_i" "$param/counts"
	}
}
core_counts() { echo "core_entry=$(probe_count core_entry) core_exit=$(probe_count core_exit)"; }
cpu1=/sys/devices/system/cpu/cpu1/online
cg=/sys/fs/cgroup
part=$cg/saakm_bracket
work=$(mktemp -d)
stopf=$work/stop
pids=""
cg_mounted=

# A task of policy $1: a spinner (spin), a task that works a little then
# sleeps (busy) or a sleeper (sleep). It stops when $stopf appears, and
# after 150 s in any case. Its pid goes to $work/$2.
start_task() {
	case $3 in
	spin) body='while [ ! -e "$0" ]; do :; done' ;;
	busy) body='while [ ! -e "$0" ]; do i=0; while [ $i -lt 300 ]; do i=$((i + 1)); done; sleep 0.05; done' ;;
	*) body='while [ ! -e "$0" ]; do sleep 0.02; done' ;;
	esac
	timeout 150 "$saakm" run -p "$1" -- sh -c "echo \$\$ > '$work/$2'; $body" "$stopf" &
	pids="$pids $!"
}

any_alive() { # pid...: is one of them still running (not a zombie)?
	for _p in "$@"; do
		[ -r "/proc/$_p/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$_p/stat" 2>/dev/null && return 0
	done
	return 1
}

cleanup() {
	trap - EXIT INT TERM
	touch "$stopf"
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2>/dev/null
	[ -e "$cpu1" ] && [ "$(cat "$cpu1")" = 0 ] && timeout 30 sh -c "echo 1 > $cpu1"
	if [ -d "$part" ]; then
		for p in $(cat "$part/cgroup.procs" 2>/dev/null); do echo "$p" >"$cg/cgroup.procs"; done
		echo member >"$part/cpuset.cpus.partition" 2>/dev/null
		rmdir "$part"
	fi
	[ -n "$cg_mounted" ] && umount "$cg"
	# a task the kernel lost would never exit: wait 10 s at most
	_i=0
	while [ $_i -lt 100 ] && any_alive $pids; do
		_i=$((_i + 1))
		sleep 0.1
	done
	any_alive $pids && diag "tasks still alive after 10 s:$pids" || wait
	grep -q '^saakm_probe ' /proc/modules && timeout 60 rmmod saakm_probe
	grep -q '^saakm_fifo ' /proc/modules && timeout 60 rmmod saakm_fifo
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

violations() { cat "$param/bracket_violations" 2>/dev/null || echo -1; }

# check_phase NAME BEFORE: no new violation since BEFORE
check_phase() {
	_now=$(violations)
	if [ "$_now" = "$2" ]; then
		ok "$1: no callback outside core_entry..core_exit"
	else
		not_ok "$1: no callback outside core_entry..core_exit" "bracket_violations $2 -> $_now"
	fi
}

check "insmod saakm_fifo" insmod "$fifo_ko"
# fifo outranks the probe (registered first): its tasks leave CPU time over
start_task fifo f1 busy
start_task fifo f2 busy
start_task fifo f3 sleep
sleep 1

# 1. Registration while fifo is loaded and busy on both CPUs.
nr_loads=$(tier_size SAAKM_BRACKET_LOADS 2 5)
loads=0 bad=0
for i in $(seq "$nr_loads"); do
	insmod "$probe_ko" || break
	loads=$((loads + 1))
	sleep 0.3
	v=$(violations)
	[ "$v" = 0 ] || { bad=$((bad + v)); diag "load $i: bracket_violations=$v"; }
	timeout 60 rmmod saakm_probe || break
done
[ "$loads" = "$nr_loads" ] && ok "probe loaded and unloaded $nr_loads times beside fifo" ||
	not_ok "probe loaded and unloaded $nr_loads times beside fifo" "only $loads loads"
[ "$bad" = 0 ] && ok "registration: no callback outside core_entry..core_exit" ||
	not_ok "registration: no callback outside core_entry..core_exit" "$bad violations"

# The probe stays loaded from here on, with tasks free to use both CPUs.
check "insmod saakm_probe" insmod "$probe_ko"
# four spinners for two CPUs: some wait READY in the probe's runqueues
start_task probe p1 spin
start_task probe p2 spin
start_task probe p3 spin
start_task probe p4 spin
start_task probe p5 sleep
# Each task writes its pid first thing, but under the class the spinners
# already run: on the debug kernel in CI p1 once needed more than 5 s.
all_started() { for _t in p1 p2 p3 p4 p5; do [ -s "$work/$_t" ] || return 1; done; }
t0=$(date +%s)
if wait_for 60 all_started; then
	ok "probe tasks started"
	diag "all five started within $(($(date +%s) - t0)) s"
else
	not_ok "probe tasks started" "not all five within 60 s: $(ls "$work")"
fi
sleep 1
v0=$(violations)
diag "counts so far: $(core_counts)"
check_phase "steady state" 0

# 2. A cpuset partition of CPU 1 (root domains rebuilt), a probe task in it.
if ! grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts; then
	mount -t cgroup2 none "$cg" && cg_mounted=1
fi
if ! grep -qw cpuset "$cg/cgroup.controllers" 2>/dev/null; then
	skip "cpuset partition of CPU 1" "no cpuset controller in cgroup2"
else
	echo +cpuset >"$cg/cgroup.subtree_control"
	mkdir "$part" && echo 1 >"$part/cpuset.cpus" && echo root >"$part/cpuset.cpus.partition"
	state=$(cat "$part/cpuset.cpus.partition" 2>/dev/null)
	if [ "$state" != root ]; then
		not_ok "cpuset partition of CPU 1" "partition state: ${state:-none}"
	else
		ok "cpuset partition of CPU 1"
		p1=$(cat "$work/p1")
		if echo "$p1" >"$part/cgroup.procs"; then
			ok "probe task moved into the partition"
		else
			not_ok "probe task moved into the partition"
			diag "task $p1: $(grep -s State "/proc/$p1/status"), $(cat "/proc/$p1/cgroup" 2>&1)"
		fi
		sleep 1
		echo "$p1" >"$cg/cgroup.procs"
		echo member >"$part/cpuset.cpus.partition"
		rmdir "$part" && ok "partition removed" || not_ok "partition removed"
		sleep 0.5
	fi
	diag "counts: $(core_counts)"
	check_phase "cpuset partition" "$v0"
	v0=$(violations)
fi

# 3. CPU hotplug: CPU 1 off and on.
if [ ! -w "$cpu1" ]; then
	skip "hotplug cycles of CPU 1" "no $cpu1"
else
	nr_cycles=$(tier_size SAAKM_BRACKET_HOTPLUG 1 3)
	cycles=0
	for i in $(seq "$nr_cycles"); do
		timeout 30 sh -c "echo 0 > $cpu1" || break
		sleep 0.5
		timeout 30 sh -c "echo 1 > $cpu1" || break
		sleep 0.5
		cycles=$((cycles + 1))
	done
	[ "$cycles" = "$nr_cycles" ] && [ "$(cat "$cpu1")" = 1 ] && ok "CPU 1 offlined and onlined $nr_cycles times" ||
		not_ok "CPU 1 offlined and onlined $nr_cycles times" "$cycles cycles, online=$(cat "$cpu1")"
	diag "counts: $(core_counts)"
	check_phase "hotplug" "$v0"
	v0=$(violations)
fi

v=$(violations)
[ "$v" = 0 ] && ok "bracket_violations is 0" || not_ok "bracket_violations is 0" "it is $v"
state=$(policy_state probe)
[ "$state" = enabled ] && ok "probe still enabled" ||
	not_ok "probe still enabled" "state: ${state:-gone}; $(policy_error probe)"
cleanup
grep -qE '^saakm_(probe|fifo) ' /proc/modules && not_ok "probe and fifo unloaded" ||
	ok "probe and fifo unloaded"
saakm_log_clean
done_testing
