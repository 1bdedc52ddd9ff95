#!/bin/bash
# Harness test: scripts/vm.sh's guest shapes (scripts/shapes.sh). Each shape
# gives QEMU its -smp topology (dies included), a GenuineIntel CPU and a
# NUMA node per socket; a shape whose vCPUs differ from --cpus, an unknown
# shape, or a shape with --topology is refused with one line. Only the vng
# command line is looked at (--dry-run); nothing boots.
set -u
. "$(dirname "$0")/fake-kernel.sh"

vm() { # ARGS...: vm.sh's dry run, with printf %q's escapes undone; sets $out, $rc
	out=$(SAAKM_VNG=$root/tests/harness/host/fake-vng/vng \
		bash "$root/scripts/vm.sh" -k "$tmp/kernel" --dry-run -e true "$@" 2>&1)
	rc=$?
	out=${out//\\/}
}

refused() { # DESC LINE: vm.sh failed, and said exactly LINE
	if [ "$rc" != 0 ] && [ "$out" = "$2" ]; then ok "$1"; else not_ok "$1" "status $rc: $out"; fi
}

vm --shape smt16
check "smt16: 16 vCPUs" grep -q -- '--cpus 16 ' <<<"$out"
check "smt16: 2 sockets of 2 dies of 2 cores of 2 threads" \
	grep -q -- '-smp 16,sockets=2,dies=2,cores=2,threads=2' <<<"$out"
check "smt16: a GenuineIntel CPU (Linux then shares the L3 per die)" \
	grep -q -- '-cpu max,vendor=GenuineIntel' <<<"$out"
check "smt16: a NUMA node per socket" \
	grep -q -- '--numa 512M,cpus=0-7 --numa 512M,cpus=8-15' <<<"$out"
vm --shape llc4
check "llc4: one node, 2 dies of 2 cores" \
	bash -c '! grep -q -- --numa <<<"$1" && grep -q -- "-smp 4,sockets=1,dies=2,cores=2,threads=1" <<<"$1"' _ "$out"
vm --shape smt16 --cpus 4
refused "a shape with other vCPUs than --cpus: refused in one line" \
	"error: --shape smt16 has 16 vCPUs, not the 4 of --cpus"
vm --shape big
refused "an unknown shape: refused, the shapes named" \
	"error: --shape big: no such shape (shapes: llc4 epyc8 smt16)"
vm --shape llc4 --topology 1,4,1
refused "a shape and --topology: refused" \
	"error: --shape and --topology both give a topology: use one"
done_testing
