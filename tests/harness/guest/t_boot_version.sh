#!/bin/sh
# The guest runs the kernel we built: 6.12.x with the -saakm local version
# (-saakm-debug on the debug kernel pass).
SAAKM_ROOT=${SAAKM_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$SAAKM_ROOT/tests/guest/lib.sh"

rel=$(uname -r)
diag "uname -r: $rel"
case $rel in
6.12.*) ok "kernel version is 6.12.x" ;;
*) not_ok "kernel version is 6.12.x" "got $rel" ;;
esac
want=-saakm
[ "${SAAKM_DEBUG_PASS:-0}" = 1 ] && want=-saakm-debug
case $rel in
*"$want") ok "local version is $want" ;;
*) not_ok "local version is $want" "got $rel" ;;
esac
done_testing
