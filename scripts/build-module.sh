#!/bin/bash
# Build one out-of-tree module directory against build/linux with Kbuild:
#   scripts/build-module.sh policies/fifo
# Outputs (*.ko, ...) stay in the directory. Uses the same compiler as the
# kernel build so kbuild does not complain about a different CC.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: build-module.sh DIR}
dir=$(cd "$dir" && pwd)
[ -f "$KDIR/Module.symvers" ] || [ -f "$KDIR/scripts/mod/modpost" ] || die "kernel tree not prepared: run 'make kernel'"
# A module's BTF is generated against vmlinux's, but kbuild does not relink
# an external module when only vmlinux changed: the kernel then refuses it
# ("failed to validate module BTF: -22"). Drop such stale .ko files.
for ko in "$dir"/*.ko; do
	[ -f "$ko" ] && [ "$KDIR/vmlinux" -nt "$ko" ] && rm -f "$ko"
done
log=$LOG_DIR/module-$(basename "$dir").log
mkdir -p "$LOG_DIR"
if ! kmake -j"$JOBS" M="$dir" modules >"$log" 2>&1; then
	cat "$log" >&2
	die "module build failed in ${dir#"$SAAKM_ROOT"/}"
fi
grep -E 'warning:' "$log" >&2 || true
