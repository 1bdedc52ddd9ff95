#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kprof.sh: run a guest command under icount with the kprof QEMU plugin, for
# an instruction profile of the guest kernel per window (bench/kprof/kprof.c).
# In the guest, `bench/kprof-mark NAME` ends the window NAME (it began at
# the previous mark: mark "begin" first) and notes the symbols of the
# modules then loaded (they are also noted at the end). Then:
#   bench/kprof.py OUT [--per ROUNDS] [--top N]
# prints instructions per function and window, divided by ROUNDS.
#
#   usage: bench/kprof.sh [-k KERNEL_DIR] [-c CPUS] -o OUT -e 'GUEST COMMAND'
set -euo pipefail
cd "$(dirname "$0")/.."
kdir=build/linux out= cmd= cpus=2
while [ $# -gt 0 ]; do
	case $1 in
	-k) kdir=$2; shift ;;
	-o) out=$2; shift ;;
	-e) cmd=$2; shift ;;
	-c) cpus=$2; shift ;;
	*) echo "usage: $0 [-k KERNEL_DIR] [-c CPUS] -o OUT -e 'GUEST COMMAND'" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] && [ -n "$cmd" ] || { echo "kprof: -o and -e are required" >&2; exit 2; }
make -s -C bench "$PWD/build/bench/kprof.so"
mark=$(awk '$3 == "__x64_sys_sethostname" { print $1 }' "$kdir/System.map")
[ -n "$mark" ] || { echo "kprof: no __x64_sys_sethostname in $kdir/System.map" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/marks" "$out/kprof.out" "$out/kallsyms-modules"
cp "$kdir/System.map" "$out/System.map"
echo "kprof: profiling the guest kernel (icount, nokaslr); windows end at bench/kprof-mark"
SAAKM_VM_QEMU_OPTS="-plugin $PWD/build/bench/kprof.so,arg=out=$out/kprof.out,arg=mark=$mark" \
	scripts/vm.sh --icount -c "$cpus" -a nokaslr -k "$kdir" -w "$out" \
	-e "export KPROF_OUT='$out'; $cmd; rc=\$?; grep '\\[' /proc/kallsyms >> '$out/kallsyms-modules'; exit \$rc"
echo "kprof: profile in $out (bench/kprof.py $out)"
