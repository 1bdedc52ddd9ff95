#!/bin/sh
# sched_ext is built in, so sched_ext twins of SaaKM policies can be compared.
# The debug kernel leaves it out (kernel/configs/debug/).
# saakm-test: normal-only
SAAKM_ROOT=${SAAKM_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$SAAKM_ROOT/tests/guest/lib.sh"

f=/sys/kernel/sched_ext/state
if [ -r $f ]; then
	ok "$f exists (state: $(cat $f))"
else
	not_ok "$f exists" "CONFIG_SCHED_CLASS_EXT missing?"
fi
done_testing
