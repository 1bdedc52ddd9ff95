#!/bin/bash
# Core scheduling must not lose SaaKM tasks: a nested
# run (one short boot) of the opt-in guest test saakm_core_sched in an SMT
# guest, CPUs 0 and 1 being threads of one core (--topology 1,1,2). The
# guest test skips on a guest without SMT, so here a skip is a failure.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
. "$root/tests/harness/nested.sh"
kdir=$root/build/linux
[ "${KERNEL_VARIANT:-}" = debug ] && kdir=$root/build/linux-debug
if [ ! -f "$kdir/arch/x86/boot/bzImage" ]; then
	skip "core scheduling in an SMT guest" "no kernel in ${kdir#"$root"/}"
	done_testing
fi
nested_run -t saakm_core_sched --topology 1,1,2 --timeout 300
log=$root/build/results/latest/saakm_core_sched.log
[ -f "$log" ] && sed 's/^/# guest: /' "$log"
check "the guest has CPUs 0 and 1 as SMT siblings" grep -q "cpu0 thread siblings: 0[-,]1" "$log"
check "saakm_core_sched passed in the SMT guest" grep -q "^PASS  saakm_core_sched" <<<"$out"
check "nested run exits 0" [ "$rc" -eq 0 ]
done_testing
