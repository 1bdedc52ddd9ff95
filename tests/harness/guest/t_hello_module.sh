#!/bin/sh
# An out-of-tree module built by 'make modules' loads, is listed and unloads.
SAAKM_ROOT=${SAAKM_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$SAAKM_ROOT/tests/guest/lib.sh"

ko=$SAAKM_ROOT/tests/modules/hello/saakm_hello.ko
if [ ! -f "$ko" ]; then
	not_ok "module built" "$ko missing: run 'make modules'"
	done_testing
fi
check "insmod saakm_hello" insmod "$ko" greeting=tap
if grep -q '^saakm_hello ' /proc/modules; then
	ok "saakm_hello listed in /proc/modules"
else
	not_ok "saakm_hello listed in /proc/modules"
fi
if dmesg | grep -q 'saakm_hello: tap, loaded'; then
	ok "module parameter reached the module"
else
	not_ok "module parameter reached the module" "no 'saakm_hello: tap, loaded' in dmesg"
fi
check "rmmod saakm_hello" rmmod saakm_hello
if grep -q '^saakm_hello ' /proc/modules; then
	not_ok "saakm_hello gone from /proc/modules"
else
	ok "saakm_hello gone from /proc/modules"
fi
done_testing
