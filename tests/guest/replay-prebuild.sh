#!/bin/bash
# replay-prebuild.sh CACHE: build on the host, into the XDG_CACHE_HOME
# CACHE, the replay programs that the guest's record tests use: fifo, its
# LIFO variant, the eevdf port and the first version of upfifo (the live
# upgrade test). The tests copy CACHE into their own
# cache, so that their replays start at once instead of compiling under
# TCG (what compiling for replay involves is tested on the host, in
# tools/tests). A program missing from CACHE is compiled in the guest.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=$1
export XDG_CACHE_HOME=$cache
saakm=$root/build/tools/saakm
sh "$root/tests/guest/fifo-lifo.sh" "$cache/lifo"
for src in "$root/policies/fifo/saakm_fifo.c" "$cache/lifo/saakm_fifo.c" \
	"$root/policies/eevdf/saakm_eevdf.c" \
	"$root/tests/modules/saakm_upfifo/saakm_upfifo1.c"; do
	"$saakm" replay --build "$src" >/dev/null
done
