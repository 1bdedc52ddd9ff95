#!/bin/sh
# Real workloads under the FIFO policy, started with the saakm CLI:
# hackbench with processes and with threads, and a stress-ng mix. Prints
# the policy events per second seen during hackbench.
# saakm-test: timeout=300
. "$(dirname "$0")/lib.sh"

saakm=$SAAKM_CLI
ko=$SAAKM_ROOT/policies/fifo/saakm_fifo.ko

check "insmod saakm_fifo" insmod "$ko"
check "saakm list shows fifo" sh -c "$saakm list | grep -q '^[0-9]* *fifo '"

before=$(events_total fifo)
t0=$(date +%s.%N)
check "hackbench (processes) under fifo" "$saakm" run -p fifo -- hackbench -g 2 -l 100
t1=$(date +%s.%N)
after=$(events_total fifo)
echo "# hackbench: $((after - before)) policy events in $(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }') s: $(echo "$t0 $t1 $before $after" | awk '{ printf "%.0f", ($4 - $3) / ($2 - $1) }') events/s"
[ "$after" -gt "$before" ] && ok "hackbench generated policy events" || not_ok "hackbench generated policy events"

check "hackbench (threads) under fifo" "$saakm" run -p fifo -- hackbench -T -g 2 -l 100

# The workload really ran under SaaKM: a child reports policy 8.
out=$("$saakm" run -p fifo -- sh -c 'cat /proc/self/sched' 2>&1)
echo "$out" | grep -qE '^policy +: +8$' && ok "a task started by saakm run has policy 8" ||
	not_ok "a task started by saakm run has policy 8" "$(echo "$out" | grep policy)"

check "stress-ng cpu/fork/switch/yield mix under fifo" "$saakm" run -p fifo -- \
	stress-ng --cpu 2 --fork 1 --switch 1 --yield 1 --timeout 5s --temp-path /tmp --quiet

bad=$(event_count fifo bad_transitions)
[ "$bad" = 0 ] && ok "no bad transition" || not_ok "no bad transition" "bad_transitions=${bad:-?}"
state=$(policy_state fifo)
[ "$state" = enabled ] && ok "fifo still enabled after the workloads" ||
	not_ok "fifo still enabled after the workloads" "state: ${state:-gone}; $(policy_error fifo)"
check "rmmod saakm_fifo" rmmod saakm_fifo
saakm_log_clean
done_testing
