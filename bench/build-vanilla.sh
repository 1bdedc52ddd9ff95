#!/bin/bash
# Build an UNPATCHED Linux 6.12 guest kernel in build/linux-vanilla for the
# overhead study "patched kernel, no policy loaded, vs. unpatched".
#
# Same tarball and same config fragments as build/linux (scripts/build-kernel.sh)
# minus everything SaaKM: no kernel/patches, and without
# kernel/configs/30-saakm.config. Uses ccache like the main build. Rebuilt only
# when the tarball or the fragments change (stamp), so it costs ~9 min once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export KDIR=$root/build/linux-vanilla
. "$root/scripts/lib.sh"
mkdir -p "$LOG_DIR"

frags=()
for f in "$root"/kernel/configs/*.config; do
	[ "$(basename "$f")" = 30-saakm.config ] && continue
	grep -q SAAKM "$f" && continue
	frags+=("$f")
done
# a release name of its own, so the guest can tell which kernel it booted
vfrag=$BUILD_DIR/bench/vanilla.config
mkdir -p "$(dirname "$vfrag")"
echo 'CONFIG_LOCALVERSION="-vanilla"' >"$vfrag"
frags+=("$vfrag")
stamp=$( { stat -c '%n %s %Y' "$KERNEL_TARBALL"; cat "${frags[@]}"; } | sha256sum | cut -d' ' -f1)
if [ -f "$KDIR/arch/x86/boot/bzImage" ] && [ "$(cat "$KDIR/.bench-stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "vanilla: build/linux-vanilla is up to date"
	exit 0
fi

t0=$SECONDS
echo "vanilla: extracting $(basename "$KERNEL_TARBALL") into build/linux-vanilla (no SaaKM patches)"
rm -rf "$KDIR.new" "$KDIR"
mkdir -p "$KDIR.new"
tar -xf "$KERNEL_TARBALL" -C "$KDIR.new" --strip-components=1
mv "$KDIR.new" "$KDIR"
{
	kmake allnoconfig
	(cd "$KDIR" && KCONFIG_CONFIG=.config scripts/kconfig/merge_config.sh -m .config "${frags[@]}")
	kmake olddefconfig
} >"$LOG_DIR/vanilla-config.log" 2>&1 || die "configure failed: $LOG_DIR/vanilla-config.log"
! grep -q SAAKM "$KDIR/.config" || die "vanilla config mentions SAAKM"
echo "vanilla: building bzImage (log: build/logs/vanilla-build.log)"
kmake -j"$JOBS" bzImage >"$LOG_DIR/vanilla-build.log" 2>&1 ||
	{ tail -30 "$LOG_DIR/vanilla-build.log" >&2; die "vanilla build failed"; }
echo "$stamp" >"$KDIR/.bench-stamp"
echo "vanilla: built $(cat "$KDIR/include/config/kernel.release") in $(fmt_secs $((SECONDS - t0)))"
