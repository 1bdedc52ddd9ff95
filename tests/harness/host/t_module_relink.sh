#!/bin/bash
# Harness test: scripts/build-module.sh relinks a module built before the
# current vmlinux. Its BTF must be generated against that vmlinux, or the
# kernel refuses the module ("failed to validate module BTF: -22"); kbuild
# alone does not relink an external module when only vmlinux changed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
. "$root/tests/guest/tap.sh"
. "$root/scripts/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -f "$KDIR/vmlinux" ]; then
	echo "1..0 # SKIP no built kernel in $KDIR"
	exit 0
fi
cp "$root/tests/modules/hello/Kbuild" "$root/tests/modules/hello/hello.c" "$tmp/"
if ! bash "$root/scripts/build-module.sh" "$tmp" >"$tmp/log" 2>&1; then
	not_ok "hello builds" "$(tail -5 "$tmp/log")"
	done_testing
	exit
fi
ok "hello builds"
ko=$(ls "$tmp"/*.ko)
# as if it had been built before the kernel was last rebuilt: every file
# older than vmlinux, the .ko newest of them, as kbuild leaves them
t=$(stat -c %Y "$KDIR/vmlinux")
find "$tmp" -type f -exec touch -d "@$((t - 60))" {} +
touch -d "@$((t - 50))" "$ko"
bash "$root/scripts/build-module.sh" "$tmp" >"$tmp/log" 2>&1
if [ -f "$ko" ] && [ "$ko" -nt "$KDIR/vmlinux" ]; then
	ok "a module older than vmlinux is relinked"
else
	not_ok "a module older than vmlinux is relinked" "$(ls -l --time-style=full-iso "$ko" "$KDIR/vmlinux" 2>&1)"
fi
done_testing
