#!/bin/bash
# libusim is rebuilt when a header it includes changes, the class's own
# headers included: policies are compiled against the current struct
# sched_saakm_entity, and a libusim built against an older one made the
# replay tests crash. Runs on a scratch copy of the files libusim is built
# from, whose headers it touches.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -f "$root/build/khost/.stamp" ] || bash "$root/scripts/host-tree.sh" >/dev/null 2>&1
mkdir -p "$tmp/tools" "$tmp/kernel/src" "$tmp/build" "$tmp/scripts"
cp -a "$root/tools/usim" "$tmp/tools/"
cp -a "$root/kernel/src/include" "$root/kernel/src/kernel" "$tmp/kernel/src/"
cp -a "$root/build/khost" "$tmp/build/"
usim() { make -s -C "$tmp/tools/usim" O="$tmp/out" "$@" >/dev/null 2>&1; }

if ! usim; then
	not_ok "libusim builds from the scratch copy"
	done_testing
fi
usim -q && ok "libusim up to date after its build" || not_ok "libusim up to date after its build"
for h in include/linux/sched/saakm.h include/uapi/linux/saakm.h kernel/sched/saakm/saakm_check.h; do
	touch -d '+1 minute' "$tmp/kernel/src/$h"
	if usim -q; then
		not_ok "a change of $h rebuilds libusim" "make -q says up to date"
	else
		ok "a change of $h rebuilds libusim"
	fi
	usim
done
done_testing
