#!/bin/bash
# Harness test: scripts/vm.sh boots once more when the guest died before its
# command started and the console shows no kernel problem (QEMU crashed),
# and not when the kernel reported a problem or the command had started.
# virtme-ng is replaced by fake-vng/vng, which runs the command on the host.
set -u
. "$(dirname "$0")/fake-kernel.sh"

# vm MODE CMD: run vm.sh with the fake vng in MODE; sets $out, $rc, $calls.
vm() {
	rm -f "$tmp/calls"
	out=$(FAKE_VNG_MODE=$1 FAKE_VNG_DIR=$tmp SAAKM_VNG=$root/tests/harness/host/fake-vng/vng \
		bash "$root/scripts/vm.sh" -k "$tmp/kernel" -t 60 -l "$tmp/console.log" -e "$2" 2>&1)
	rc=$?
	calls=$(wc -l <"$tmp/calls")
	echo "$out" | sed 's/^/# vm: /'
}

vm ok "exit 7"
check "a clean boot: the command's status comes back" [ "$rc" -eq 7 ]
check "a clean boot: one boot" [ "$calls" -eq 1 ]

vm crash_once "echo ran >$tmp/ran"
check "QEMU dies once at boot: the command runs on a second boot" [ -s "$tmp/ran" ]
check "QEMU dies once at boot: its status comes back" [ "$rc" -eq 0 ]
check "QEMU dies once at boot: two boots" [ "$calls" -eq 2 ]
check "QEMU dies once at boot: the retry is said" grep -q "booting once more" <<<"$out"
check "QEMU dies once at boot: the first console log is kept" [ -s "$tmp/console.log.boot1" ]

vm crash "true"
check "QEMU dies at every boot: no status (125)" [ "$rc" -eq 125 ]
check "QEMU dies at every boot: two boots, not more" [ "$calls" -eq 2 ]

vm panic "true"
check "a kernel panic at boot: fails (log scan, 3)" [ "$rc" -eq 3 ]
check "a kernel panic at boot: not booted again" [ "$calls" -eq 1 ]

vm ok "kill -SEGV \$PPID"
check "a guest that dies after its command started: no status (125)" [ "$rc" -eq 125 ]
check "a guest that dies after its command started: not booted again" [ "$calls" -eq 1 ]
done_testing
