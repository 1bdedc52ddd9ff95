#!/bin/sh
# The sched_ext CI smoke test, for SaaKM: stress-ng --aggressive CPU, fork
# and affinity stressors under the FIFO policy for SAAKM_STRESS_SECS (make
# test: 20 s, 10 on the debug kernel; make test-full: 180 s); the policy must
# still be healthy (enabled, no error) at the end.
# saakm-test: timeout=240
. "$(dirname "$0")/lib.sh"

saakm=$SAAKM_CLI
if debug_pass; then secs=$(tier_size SAAKM_STRESS_SECS 10 180); else secs=$(tier_size SAAKM_STRESS_SECS 20 180); fi

check "insmod saakm_fifo" insmod "$SAAKM_ROOT/policies/fifo/saakm_fifo.ko"
check "stress-ng --aggressive cpu/fork/affinity for ${secs}s under fifo" \
	"$saakm" run -p fifo -- stress-ng --aggressive --cpu 2 --fork 2 --affinity 2 \
	--timeout "${secs}s" --temp-path /tmp --quiet
state=$(policy_state fifo)
[ "$state" = enabled ] && ok "fifo still enabled" || not_ok "fifo still enabled" "state: ${state:-gone}; $(policy_error fifo)"
bad=$(event_count fifo bad_transitions)
[ "$bad" = 0 ] && ok "no bad transition" || not_ok "no bad transition" "bad_transitions=${bad:-?}"
diag "new_place=$(event_count fifo new_place) unblock_place=$(event_count fifo unblock_place)" \
	"schedule=$(event_count fifo schedule) migrated=$(event_count fifo migrated)"
check "rmmod saakm_fifo" rmmod saakm_fifo
saakm_log_clean
done_testing
