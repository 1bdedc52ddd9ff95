#!/bin/sh
# Runs bench/dispatch-cost.sh in the guest (a measurement, not a check of
# behaviour): shinjuku pulls from the shared queue vs local picks, timed
# from a recording. Opt-in: select it by name (-t saakm_dispatch_cost).
# Passes if the recording was made and holds both pulls and local picks.
# saakm-test: opt-in
# saakm-test: normal-only
# saakm-test: timeout=300
. "$(dirname "$0")/lib.sh"

out=$(mktemp -d)
if "$SAAKM_ROOT/bench/dispatch-cost.sh" "$out" >"$out/log" 2>&1; then
	sed 's/^/# /' "$out/log"
	ok "dispatch cost measured (pulls and local picks in the recording)"
else
	sed 's/^/# /' "$out/log"
	not_ok "dispatch cost measured" "bench/dispatch-cost.sh failed"
fi
rm -rf "$out"
done_testing
