#!/bin/sh
# Loads a module that WARNs on purpose. The test itself passes; the run must
# still fail because the host scans the console and finds the WARNING. This
# proves the detection (see tests/harness/host/t_runner_catches_warn.sh).
# saakm-test: opt-in
SAAKM_ROOT=${SAAKM_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$SAAKM_ROOT/tests/guest/lib.sh"

ko=$SAAKM_ROOT/tests/modules/warn_on_load/saakm_warn_on_load.ko
check "insmod saakm_warn_on_load" insmod "$ko"
check "rmmod saakm_warn_on_load" rmmod saakm_warn_on_load
done_testing
