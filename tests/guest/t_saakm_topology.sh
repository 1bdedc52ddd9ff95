#!/bin/sh
# The CPU topology that the class offers policies, checked against sysfs,
# and the guest's own layout checked against its shape.
#
# 1. With SAAKM_SHAPE (tests/run.sh --shape NAME), the guest's sysfs shows
#    the shape of scripts/shapes.sh: its CPUs, SMT siblings, LLCs (L3 per
#    die), packages, dies and NUMA nodes. A QEMU or kernel change that
#    flattens the topology fails here, loudly.
# 2. saakm_probe's "topo" parameter prints, per online CPU, what a policy
#    sees: saakm_topo_mask() at every level, saakm_llc_id() and
#    saakm_topo_distance(). Each agrees with sysfs: at start, with a CPU
#    offline, after it is back, and while a cpuset partition has rebuilt
#    the sched domains (the helpers follow the cache topology, which a
#    partition does not change).
# 3. The load helpers: with a CFS spinner pinned to each CPU of one LLC,
#    saakm_llc_nr_running() counts them all and saakm_idle_cpu() finds no
#    idle CPU there; with them gone it finds one.
# saakm-test: timeout=300
. "$(dirname "$0")/lib.sh"
. "$SAAKM_ROOT/scripts/shapes.sh"

sys=/sys/devices/system
topo=/sys/module/saakm_probe/parameters/topo
cg=/sys/fs/cgroup
part=$cg/saakm_topology
work=$(mktemp -d)
cg_mounted=

cleanup() {
	trap - EXIT INT TERM
	# shellcheck disable=SC2046 # the spinners' pids
	kill $(cat "$work"/spin.* 2>/dev/null) 2>/dev/null
	if [ -d "$part" ]; then
		echo member >"$part/cpuset.cpus.partition" 2>/dev/null
		rmdir "$part"
	fi
	[ -n "$cg_mounted" ] && umount "$cg"
	rm -rf "$work"
	saakm_cleanup # CPUs back online (sysfs_set), the probe unloaded
}
trap cleanup EXIT
trap 'exit 143' TERM

# list FIRST COUNT: the CPU list "FIRST-LAST" of COUNT CPUs from FIRST.
list() {
	if [ "$2" = 1 ]; then echo "$1"; else echo "$1-$(($1 + $2 - 1))"; fi
}

# The comparisons read sysfs with the shell's read, not $(cat): forks are
# slow in a 16-vCPU TCG guest, and they run 7 levels x 16 CPUs x 5 phases.
# FILE: its first line in $want. dash's read, a byte at a time, gets
# nothing from sysfs's binary attributes (thread_siblings_list, cpulist...):
# those take a cat.
rd() { read -r want <"$1" 2>/dev/null || want=$(cat "$1"); }
node_of() { for _d in "$sys/cpu/cpu$1"/node*; do node=${_d##*node}; done; }	# CPU: $node
llc_file() { for _d in "$sys/cpu/cpu$1"/cache/index*; do file=$_d/shared_cpu_list; done; } # $file

# online_only LIST: the online CPUs of a CPU list, as a CPU list. The class's
# masks hold online CPUs only; sysfs's L3 list keeps offline ones on some
# CPUs (the default TCG CPU, an AMD family 0xf, does).
online_only() {
	awk -v list="$1" -v online="$(cat $sys/cpu/online)" '
	function expand(l, set,   n, i, r, a) {
		n = split(l, r, ",")
		for (i = 1; i <= n; i++) {
			if (split(r[i], a, "-") == 1) a[2] = a[1]
			for (c = a[1]; c <= a[2]; c++) set[c] = 1
		}
	}
	BEGIN {
		expand(list, want); expand(online, on)
		for (c = 0; c < 4096; c++) {
			if (!(c in want) || !(c in on)) continue
			if (start != "" && c == last + 1) { last = c; continue }
			if (start != "") out = out sep (start == last ? start : start "-" last)
			if (start != "") sep = ","
			start = c; last = c
		}
		if (start != "") out = out sep (start == last ? start : start "-" last)
		print out
	}'
}

# llc_list CPU: sysfs's list of the CPUs sharing CPU's last-level cache.
llc_list() {
	llc_file "$1" && cat "$file"
}

# --- 1. the shape's layout ---------------------------------------------------------
if [ -n "${SAAKM_SHAPE:-}" ]; then
	tap_subtest "shape $SAAKM_SHAPE"
	read -r n sockets dies cores threads nodes <<EOF
$(saakm_shape "$SAAKM_SHAPE")
EOF
	per_llc=$((cores * threads))
	per_pkg=$((dies * per_llc))
	[ "$(cat $sys/cpu/online)" = "$(list 0 "$n")" ] && ok "$n CPUs online" ||
		not_ok "$n CPUs online" "online: $(cat $sys/cpu/online)"
	bad_smt= bad_llc= bad_pkg= bad_die= bad_node=
	cpu=0
	while [ $cpu -lt "$n" ]; do
		t=$sys/cpu/cpu$cpu/topology
		want=$(list $((cpu - cpu % threads)) "$threads")
		got=$(cat "$t/thread_siblings_list")
		[ "$got" = "$want" ] || bad_smt=${bad_smt:-"cpu$cpu: $got, not $want"}
		want=$(list $((cpu - cpu % per_llc)) "$per_llc")
		got=$(llc_list $cpu)
		[ "$got" = "$want" ] || bad_llc=${bad_llc:-"cpu$cpu: $got, not $want"}
		got=$(cat "$t/physical_package_id")
		[ "$got" = $((cpu / per_pkg)) ] || bad_pkg=${bad_pkg:-"cpu$cpu: $got, not $((cpu / per_pkg))"}
		want=$(list $((cpu - cpu % per_pkg)) "$per_pkg")
		got=$(cat "$t/core_siblings_list")
		[ "$got" = "$want" ] || bad_pkg=${bad_pkg:-"cpu$cpu: package CPUs $got, not $want"}
		want=$(list $((cpu - cpu % per_llc)) "$per_llc")
		got=$(cat "$t/die_cpus_list" 2>/dev/null) || got="(no die_cpus_list)"
		[ "$got" = "$want" ] || bad_die=${bad_die:-"cpu$cpu: die CPUs $got, not $want"}
		want_node=0
		[ "$nodes" -gt 1 ] && want_node=$((cpu / (n / nodes)))
		node_of $cpu
		[ "$node" = "$want_node" ] || bad_node=${bad_node:-"cpu$cpu: node $node, not $want_node"}
		cpu=$((cpu + 1))
	done
	[ -z "$bad_smt" ] && ok "$threads thread(s) per core" || not_ok "$threads thread(s) per core" "$bad_smt"
	[ -z "$bad_llc" ] && ok "an L3 per die of $per_llc CPUs ($((n / per_llc)) LLCs)" ||
		not_ok "an L3 per die of $per_llc CPUs ($((n / per_llc)) LLCs)" "$bad_llc"
	[ -z "$bad_pkg" ] && ok "$sockets package(s) of $per_pkg CPUs" || not_ok "$sockets package(s) of $per_pkg CPUs" "$bad_pkg"
	[ -z "$bad_die" ] && ok "$dies die(s) per package" || not_ok "$dies die(s) per package" "$bad_die"
	got=$(ls -d $sys/node/node* | wc -l)
	[ "$got" = "$nodes" ] && [ -z "$bad_node" ] && ok "$nodes NUMA node(s), a socket each" ||
		not_ok "$nodes NUMA node(s), a socket each" "$got nodes; ${bad_node:-}"
fi

# --- 2. the class's view against sysfs -----------------------------------------------
tap_subtest ""
check "insmod saakm_probe" insmod "$SAAKM_ROOT/tests/modules/saakm_probe/saakm_probe.ko"

LEVELS="smt cluster llc numa system llc_id distance0"

# sysfs_level CPU LEVEL: what sysfs says of LEVEL for CPU, in $want, in the
# probe's format.
sysfs_level() {
	case $2 in
	smt) rd "$sys/cpu/cpu$1/topology/thread_siblings_list" ;;
	cluster) rd "$sys/cpu/cpu$1/topology/cluster_cpus_list" ;;
	llc) llc_file "$1" && rd "$file" ;;
	numa) node_of "$1" && rd "$sys/node/node$node/cpulist" ;;
	system) rd $sys/cpu/online ;;
	llc_id) llc_file "$1" && rd "$file" && want=${want%%[,-]*} ;;
	distance0)
		node_of 0
		_n0=$node
		node_of "$1"
		rd "$sys/node/node$node/distance"
		# shellcheck disable=SC2086 # the distances, as words
		set -- $want
		eval "want=\${$((_n0 + 1))}"
		;;
	esac
}

# agree PHASE: each level of each online CPU's line in $topo equals sysfs;
# one TAP line per level, naming the first CPU that disagrees.
agree() {
	cat "$topo" >"$work/topo" || { not_ok "$1: the probe's topo parameter is readable"; return; }
	rm -f "$work"/bad.*
	while read -r cpu fields; do
		cpu=${cpu#cpu}
		for kv in $fields; do
			lvl=${kv%%=*}
			case " $LEVELS " in *" $lvl "*) ;; *) continue ;; esac
			sysfs_level "$cpu" "$lvl"
			case $lvl in llc | llc_id)
				[ "${kv#*=}" = "$want" ] || { llc_file "$cpu" && want=$(online_only "$(cat "$file")"); }
				[ $lvl = llc ] || want=${want%%[,-]*} ;;
			esac
			[ "${kv#*=}" = "$want" ] || [ -e "$work/bad.$lvl" ] ||
				echo "cpu$cpu: ${kv#*=}, sysfs $want" >"$work/bad.$lvl"
		done
	done <"$work/topo"
	for lvl in $LEVELS; do
		if [ -e "$work/bad.$lvl" ]; then
			not_ok "$1: $lvl agrees with sysfs on every online CPU" "$(cat "$work/bad.$lvl")"
		else
			ok "$1: $lvl agrees with sysfs on every online CPU"
		fi
	done
}

# field CPU NAME: the value of NAME=... in CPU's line of $topo, read now.
field() {
	for _kv in $(grep "^cpu$1 " "$topo"); do
		case $_kv in "$2"=*) echo "${_kv#*=}" ;; esac
	done
}

# cpus_of LIST: the CPUs of a CPU list, one per line.
cpus_of() {
	echo "$1" | tr ',' '\n' | while IFS=- read -r _a _b; do seq "$_a" "${_b:-$_a}"; done
}

agree "at start"
last=$(($(grep -c '^processor' /proc/cpuinfo) - 1))

# 2b. hotplug: CPU 1 (an SMT sibling and LLC peer of CPU 0 on the shapes)
# and the last CPU offline, then back.
if [ ! -w $sys/cpu/cpu1/online ]; then
	skip "hotplug" "CPU 1 cannot go offline"
else
	down=1
	[ "$last" -gt 1 ] && down="1 $last"
	for c in $down; do
		sysfs_set $sys/cpu/cpu$c/online 0 || not_ok "CPU $c offline"
	done
	agree "CPUs $down offline"
	for c in $down; do
		echo 1 >$sys/cpu/cpu$c/online || not_ok "CPU $c back online"
	done
	agree "CPUs $down back online"
fi

# 2c. a cpuset partition of the last CPU's LLC rebuilds the sched domains.
if ! grep -q " $cg cgroup2 " /proc/mounts; then
	mount -t cgroup2 none "$cg" && cg_mounted=1
fi
pcpus=$(llc_list "$last")
if [ "$pcpus" = "$(cat $sys/cpu/online)" ]; then
	pcpus=$last # one LLC: partition one CPU
fi
if ! grep -qw cpuset "$cg/cgroup.controllers" 2>/dev/null; then
	skip "partition" "no cpuset controller in cgroup2"
else
	echo +cpuset >"$cg/cgroup.subtree_control"
	mkdir "$part" && echo "$pcpus" >"$part/cpuset.cpus" && echo root >"$part/cpuset.cpus.partition"
	state=$(cat "$part/cpuset.cpus.partition" 2>/dev/null)
	[ "$state" = root ] && ok "a cpuset partition of CPUs $pcpus" ||
		not_ok "a cpuset partition of CPUs $pcpus" "partition state: ${state:-none}"
	agree "partition of CPUs $pcpus"
	echo member >"$part/cpuset.cpus.partition" && rmdir "$part" && ok "partition removed" ||
		not_ok "partition removed"
fi

# --- 3. the load helpers -----------------------------------------------------------
tap_subtest "load"
llc=$(llc_list "$last")
k=0
for c in $(cpus_of "$llc"); do
	taskset -c "$c" sh -c 'while :; do :; done' &
	echo $! >"$work/spin.$c"
	k=$((k + 1))
done
sleep 1
nr=$(field "$last" llc_nr_running)
[ "${nr:-0}" -ge "$k" ] && ok "saakm_llc_nr_running() counts the $k spinners of LLC $llc" "$nr" ||
	not_ok "saakm_llc_nr_running() counts the $k spinners of LLC $llc" "$nr"
idle=$(field "$last" llc_idle)
[ "$idle" = -1 ] && ok "saakm_idle_cpu() finds no idle CPU in the busy LLC" ||
	not_ok "saakm_idle_cpu() finds no idle CPU in the busy LLC" "it gave CPU $idle"
# shellcheck disable=SC2046 # the spinners' pids
kill $(cat "$work"/spin.*) && rm -f "$work"/spin.*
wait 2>/dev/null
found=
for i in 1 2 3 4 5; do
	sleep 0.2
	idle=$(field "$last" llc_idle)
	[ "$idle" -ge 0 ] 2>/dev/null && { found=$idle; break; }
done
[ -n "$found" ] && ok "saakm_idle_cpu() finds an idle CPU once the spinners are gone" "CPU $found" ||
	not_ok "saakm_idle_cpu() finds an idle CPU once the spinners are gone" "none in 5 tries"
if cpus_of "$llc" | grep -qx "$found"; then
	ok "the idle CPU it found is in that LLC"
else
	not_ok "the idle CPU it found is in that LLC" "CPU $found, LLC $llc"
fi

check "rmmod saakm_probe" rmmod saakm_probe
saakm_log_clean
done_testing
