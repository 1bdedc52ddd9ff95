#!/bin/bash
# Prepare build/khost: the few files of pristine Linux 6.12 that the host
# side (libusim, the policies' host tests) compiles against: the kernel's
# user-space headers (tools/include, tools/arch/x86/include) and its rbtree
# (tools/lib/rbtree.c), about 2 MB. The class's own headers come from
# kernel/src, so no kernel tree is extracted, patched or built for the host
# loop. Taken from build/linux's git (tag pristine) when there is one,
# otherwise from Debian's tarball (about 20 s); done again only when the
# tarball changes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD_DIR/khost
paths=(tools/include tools/arch/x86/include tools/lib/rbtree.c)
[ -f "$KERNEL_TARBALL" ] || die "$KERNEL_TARBALL missing: run 'make setup' (package linux-source-6.12)"
id=$(kernel_tarball_id)
[ "$(cat "$out/.stamp" 2>/dev/null)" = "$id" ] && exit 0

rm -rf "$out.new"
mkdir -p "$out.new"
src=$BUILD_DIR/linux
if git -C "$src" rev-parse -q --verify pristine^{commit} >/dev/null 2>&1 &&
	[ "$(cat "$src/.git/saakm-tarball" 2>/dev/null)" = "$id" ]; then
	log "host: kernel headers for the host tools from ${src#"$SAAKM_ROOT"/} (tag pristine)"
	git -C "$src" archive pristine "${paths[@]}" | tar -x -C "$out.new"
else
	log "host: extracting the kernel's user-space headers (${paths[*]}) from $(basename "$KERNEL_TARBALL"), about 20 s"
	top=$(tar -tJf "$KERNEL_TARBALL" 2>/dev/null | head -1 || true)
	top=${top%%/*}
	tar -xJf "$KERNEL_TARBALL" -C "$out.new" --strip-components=1 \
		--wildcards "${paths[@]/#/$top/}" "${paths[@]/#/$top/}/*" 2>/dev/null ||
		[ -f "$out.new/tools/lib/rbtree.c" ] || die "could not extract ${paths[*]} from $KERNEL_TARBALL"
fi
for p in "${paths[@]}"; do
	[ -e "$out.new/$p" ] || die "$p missing from the kernel source"
done
echo "$id" >"$out.new/.stamp"
rm -rf "$out"
mv "$out.new" "$out"
log "host: kernel headers ready in ${out#"$SAAKM_ROOT"/} ($(du -sh "$out" | cut -f1))"
