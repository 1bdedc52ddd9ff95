#!/bin/bash
# Boot the SaaKM kernel (build/linux) in a QEMU guest through virtme-ng.
#
# The guest sees the host filesystem read-only over 9p (writes go to a tmpfs
# overlay) plus any --rwdir directories read-write. Without -e it is an
# interactive shell; with -e it runs the command, powers off, and the console
# log is scanned for kernel problems (panic, BUG, WARNING, lockdep, ...).
#
# vng's exit status is not reliable with --exec, so the command's status is
# written by the guest into a shared directory and returned from here.
#
# Exit status (with -e): the command's status if the guest ran clean;
#   124 hard timeout, 125 no status came back (guest died), 3 the log scan
#   found a kernel problem (takes precedence over the command's status).
#
# A guest that dies before COMMAND starts, with a clean console log, is
# booted once more: QEMU itself has crashed during boot on this host (a
# segfault in PCI enumeration, once in about a day of guests). A kernel that
# dies at boot with a report fails at once, and one that dies silently fails
# on the second boot; the first attempt's log is kept (FILE.boot1).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/shapes.sh"

usage() {
	cat <<EOF
usage: $(basename "$0") [options] [-e COMMAND]
  -c, --cpus N            vCPUs (default ${CPUS:-2})
  -m, --memory MB         guest memory in MiB, or with G/M suffix (default 1G)
  --topology S,C,T        sockets,cores,threads (S*C*T must equal --cpus)
  --shape NAME            a named topology (scripts/shapes.sh): $SAAKM_SHAPES
  --numa N                N NUMA nodes; memory and vCPUs split evenly
  --icount                deterministic time: -icount shift=0,sleep=off
  --kvm                   try KVM instead of TCG (slow when nested here)
  -t, --timeout SECS      kill the guest after SECS of wall time (default none)
  -w, --rwdir DIR         share DIR read-write at the same path (repeatable)
  -l, --log FILE          console log (default build/logs/vm-<time>.log)
  -e, --exec COMMAND      run COMMAND in the guest (sh -c) and power off
  -f, --filter REGEX      while running, print console lines matching REGEX
  -v, --verbose           print the whole console while running
  -a, --append ARG        extra kernel command line argument (repeatable)
  -k, --kernel DIR        kernel build tree (default build/linux)
  --no-scan               do not scan the console log
  --dry-run               print the vng command line and exit
EOF
}

cpus=
mem=1G
topology=
shape=
numa=0
icount=${ICOUNT:-}
kvm=
timeout_s=${TIMEOUT:-}
rwdirs=()
logfile=
cmd=
filter=
verbose=
appends=()
scan=1
dry=
kdir=$KDIR

while [ $# -gt 0 ]; do
	case $1 in
	-c | --cpus) cpus=$2; shift ;;
	-m | --memory) mem=$2; shift ;;
	--topology) topology=$2; shift ;;
	--shape) shape=$2; shift ;;
	--numa) numa=$2; shift ;;
	--icount) icount=1 ;;
	--kvm) kvm=1 ;;
	-t | --timeout) timeout_s=$2; shift ;;
	-w | --rwdir) rwdirs+=("$2"); shift ;;
	-l | --log) logfile=$2; shift ;;
	-e | --exec) cmd=$2; shift ;;
	-f | --filter) filter=$2; shift ;;
	-v | --verbose) verbose=1 ;;
	-a | --append) appends+=("$2"); shift ;;
	-k | --kernel) kdir=$2; shift ;;
	--no-scan) scan= ;;
	--dry-run) dry=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done

# A shape sets the vCPUs, their topology and the NUMA nodes.
if [ -n "$shape" ]; then
	spec=$(saakm_shape "$shape") || die "--shape $shape: no such shape (shapes: $SAAKM_SHAPES)"
	read -r sh_cpus sh_s sh_d sh_c sh_t sh_n <<<"$spec"
	[ -z "$topology" ] || die "--shape and --topology both give a topology: use one"
	[ -z "$cpus" ] || [ "$cpus" = "$sh_cpus" ] ||
		die "--shape $shape has $sh_cpus vCPUs, not the $cpus of --cpus"
	cpus=$sh_cpus
	[ "$numa" -gt 1 ] || numa=$sh_n
fi
cpus=${cpus:-${CPUS:-2}}

VNG=${SAAKM_VNG:-$VENV/bin/vng} # SAAKM_VNG: a stand-in, for the runner's own tests
[ -x "$VNG" ] || die "$VNG missing: run 'make setup'"
export PATH="$VENV/bin:$PATH" # vng runs virtme-run and friends from there
[ -f "$kdir/arch/x86/boot/bzImage" ] || die "no kernel in $kdir: run 'make kernel'"

# memory in MiB
case $mem in
*[gG]) mem_mb=$((${mem%[gG]} * 1024)) ;;
*[mM]) mem_mb=${mem%[mM]} ;;
*) mem_mb=$mem ;;
esac

# --force-9p: virtiofsd is not packaged here; skip vng's failing probe for it.
args=(--run "$kdir" --force-9p --cpus "$cpus" --memory "${mem_mb}M")
[ -n "$kvm" ] || args+=(--disable-kvm)
qopts=()
if [ -n "$topology" ]; then
	IFS=, read -r s c t <<<"$topology"
	[ $((s * c * t)) -eq "$cpus" ] || die "--topology $topology does not give $cpus vCPUs"
	qopts+=("-smp $cpus,sockets=$s,cores=$c,threads=$t")
elif [ -n "$shape" ]; then
	# TCG's "max" CPU says AuthenticAMD, family 0xf, and Linux then puts the
	# L3 at the package, whatever the dies; as GenuineIntel, Linux reads the
	# L3's sharing from CPUID leaf 4, which QEMU fills per die.
	qopts+=("-smp $cpus,sockets=$sh_s,dies=$sh_d,cores=$sh_c,threads=$sh_t" "-cpu max,vendor=GenuineIntel")
fi
if [ "$numa" -gt 1 ]; then
	[ $((cpus % numa)) -eq 0 ] || die "$cpus vCPUs cannot be split in $numa NUMA nodes"
	[ $((mem_mb % numa)) -eq 0 ] || die "${mem_mb}M cannot be split in $numa NUMA nodes"
	per=$((cpus / numa))
	for ((n = 0; n < numa; n++)); do
		args+=(--numa "$((mem_mb / numa))M,cpus=$((n * per))-$((n * per + per - 1))")
	done
fi
[ -n "$icount" ] && [ "$icount" != 0 ] && qopts+=("-icount shift=0,sleep=off")
# SAAKM_VM_GDB=PORT: QEMU's gdb stub, to take a backtrace of a hung guest
# (gdb build/linux*/vmlinux -ex "target remote :PORT" -ex "thread apply all bt").
[ -n "${SAAKM_VM_GDB:-}" ] && qopts+=("-gdb tcp:127.0.0.1:$SAAKM_VM_GDB")
# SAAKM_VM_QEMU_OPTS: more QEMU options, e.g. a TCG plugin (bench/kprof).
[ -n "${SAAKM_VM_QEMU_OPTS:-}" ] && qopts+=("$SAAKM_VM_QEMU_OPTS")
[ ${#qopts[@]} -gt 0 ] && args+=("--qemu-opts=${qopts[*]}")
# 4-level paging: TCG offers LA57, and with 5-level paging the KASAN kernel
# took a wild-memory-access report in an early-boot interrupt (handle_edge_irq
# during arch_cpu_finalize_init, before any SaaKM code) in 1 of 18 boots.
# tsc=reliable: without it the clocksource watchdog can find TCG's TSC
# "unstable" under host load and move the guest to the HPET mid-test (seen in
# a debug pass), which slows all timekeeping and every timed wait after it.
args+=(--append no5lvl --append tsc=reliable)
for a in "${appends[@]}"; do args+=(--append "$a"); done
for d in "${rwdirs[@]}"; do
	mkdir -p "$d"
	args+=(--rwdir "$(cd "$d" && pwd)")
done

if [ -z "$cmd" ]; then
	# Interactive shell: hand the terminal to vng as it is.
	[ -n "$dry" ] && { echo "$VNG ${args[*]}"; exit 0; }
	log "vm: interactive guest ($cpus vCPUs, ${mem_mb}M, $([ -n "$kvm" ] && echo KVM || echo TCG)); leave with 'exit' or Ctrl-A X"
	cd "$SAAKM_ROOT" && exec "$VNG" "${args[@]}"
fi

mkdir -p "$LOG_DIR"
[ -n "$logfile" ] || logfile=$LOG_DIR/vm-$(date +%Y%m%d-%H%M%S).log
mkdir -p "$(dirname "$logfile")"
state=$(mktemp -d "$BUILD_DIR/vm-state.XXXXXX")
trap 'rm -rf "$state"' EXIT
args+=(--rwdir "$state" --verbose)
# The status of the command travels through the shared directory.
args+=(--exec "touch '$state/started'; cd '$SAAKM_ROOT' && { sh -c '$(printf '%s' "$cmd" | sed "s/'/'\\\\''/g")'; echo \$? > '$state/exit-code'; }")

if [ -n "$dry" ]; then
	printf '%q ' "$VNG" "${args[@]}"
	echo
	exit 0
fi

t0=$SECONDS
tcmd=()
[ -n "$timeout_s" ] && tcmd=(timeout --kill-after=10 "$timeout_s")
# One boot: the console goes to $logfile; sets vng_rc.
boot() {
	{
		echo "# vm: $(date -Is) $VNG ${args[*]}"
		cd "$SAAKM_ROOT" && "${tcmd[@]}" "$VNG" "${args[@]}" </dev/null 2>&1
		echo "# vm: vng exited with status $? (not trusted)"
	} | if [ -n "$verbose" ]; then
		tee "$logfile"
	elif [ -n "$filter" ]; then
		tee "$logfile" | { grep --line-buffered -E "$filter" || true; }
	else
		cat >"$logfile"
	fi
	vng_rc=$(sed -n 's/^# vm: vng exited with status \([0-9]*\).*/\1/p' "$logfile" | tail -1)
}

timed_out() {
	[ -n "$timeout_s" ] && { [ "$vng_rc" = 124 ] || [ "$vng_rc" = 137 ]; }
}

boot
if [ ! -e "$state/started" ] && ! timed_out && python3 "$SAAKM_ROOT/scripts/logscan.py" "$logfile" >/dev/null; then
	mv "$logfile" "$logfile.boot1"
	log "vm: the guest died before the command started, with no kernel report (QEMU crashed?): booting once more; first log: ${logfile#"$SAAKM_ROOT"/}.boot1"
	boot
fi
elapsed=$((SECONDS - t0))

rc=0
if [ -f "$state/exit-code" ]; then
	rc=$(cat "$state/exit-code")
elif timed_out; then
	log "vm: timed out after ${timeout_s}s of wall time, guest killed"
	rc=124
else
	log "vm: the guest did not report the command's exit status (crashed or powered off early); end of the console log:"
	tail -n 20 "$logfile" | sed 's/^/vm:   | /'
	rc=125
fi

if [ -n "$scan" ] && ! python3 "$SAAKM_ROOT/scripts/logscan.py" "$logfile"; then
	rc=3
fi
log "vm: guest finished in $(fmt_secs "$elapsed"), status $rc, console log: ${logfile#"$SAAKM_ROOT"/}"
exit "$rc"
