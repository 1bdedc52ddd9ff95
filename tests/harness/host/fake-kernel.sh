# Sourced by the harness's host tests that run scripts/vm.sh with the fake
# vng (fake-vng/vng): TAP, $root, and $tmp, a temporary directory removed at
# exit, holding an empty kernel tree ($tmp/kernel) that vm.sh accepts.
# shellcheck shell=bash
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
. "$root/tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/kernel/arch/x86/boot"
: >"$tmp/kernel/arch/x86/boot/bzImage"
