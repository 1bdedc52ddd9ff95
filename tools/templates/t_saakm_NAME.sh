#!/bin/sh
# The @NAME@ policy in a guest: saakm_@NAME@.ko loads and registers
# "@NAME@"; tasks started on it with 'saakm run', twice as many CPU-bound
# ones as CPUs and a few that sleep and wake, all finish, each seeing
# itself in SCHED_SAAKM under @NAME@; the policy's event counters saw them;
# no task is left on it, nothing was logged against it, and it unloads.
#
# 'saakm new' wrote this test with the policy, as a start: add the checks
# of what @NAME@ is for. It is opt-in, so that a new policy does not join
# every make test: run it with make test T=saakm_@NAME@, and drop the
# opt-in tag below once the policy belongs in every run.
# saakm-test: opt-in
# saakm-test: timeout=120
. "$(dirname "$0")/lib.sh"

name=@NAME@
ko="@KO@"
work=$(mktemp -d)

new_exit() {
	_rc=$?
	trap - EXIT
	saakm_cleanup
	rm -rf "$work"
	exit "$_rc"
}
trap new_exit EXIT

if [ ! -f "$ko" ]; then
	not_ok "saakm_$name.ko is built" "$ko missing: make modules"
	done_testing
fi
check "insmod saakm_$name" insmod "$ko"
state=$(policy_state "$name")
[ "$state" = enabled ] && ok "$name is registered and enabled" ||
	not_ok "$name is registered and enabled" "state: ${state:-not listed}"

# run_on ID SCRIPT: run SCRIPT in sh on the policy, in the background; it
# ends by writing what 'saakm show' says of it to $work/ID.
run_on() {
	timeout 60 "$SAAKM_CLI" run -p "$name" -- \
		sh -c "$2; \"$SAAKM_CLI\" show \$\$ >$work/$1" &
}
spin='i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done'
naps='for j in 1 2 3 4 5 6 7 8 9 10; do sleep 0.01; done'
ntasks=0
for i in $(seq $((2 * $(nproc)))); do
	run_on "spin$i" "$spin"
	ntasks=$((ntasks + 1))
done
for i in 1 2 3 4; do
	run_on "naps$i" "$naps"
	ntasks=$((ntasks + 1))
done
wait

ran=$(grep -l "SCHED_SAAKM policy [0-9]* ($name)" "$work"/* 2>/dev/null | wc -l)
[ "$ran" = "$ntasks" ] && ok "$ntasks tasks ran on $name and finished" ||
	not_ok "$ntasks tasks ran on $name and finished" "$ran did"
placed=$(event_count "$name" new_place)
[ "${placed:-0}" -ge "$ntasks" ] && ok "$name placed every task (new_place=$placed)" ||
	not_ok "$name placed every task" "new_place=${placed:-?}, $ntasks tasks"
picks=$(event_count "$name" schedule)
[ "${picks:-0}" -gt 0 ] && ok "$name picked tasks (schedule=$picks)" ||
	not_ok "$name picked tasks" "schedule=${picks:-?}"
sleeps=$(event_count "$name" block)
[ "${sleeps:-0}" -gt 0 ] && ok "$name saw tasks sleep (block=$sleeps)" ||
	not_ok "$name saw tasks sleep" "block=${sleeps:-?}"
no_tasks() { [ "$(policy_tasks "$name")" = 0 ]; }
check "no task is left on $name" wait_for 10 no_tasks
bad=$(event_count "$name" bad_transitions)
[ "$bad" = 0 ] && ok "no bad transition" || not_ok "no bad transition" "bad_transitions=${bad:-?}"
state=$(policy_state "$name")
[ "$state" = enabled ] && ok "$name still enabled" ||
	not_ok "$name still enabled" "state: ${state:-gone}; $(policy_error "$name")"
check "rmmod saakm_$name" rmmod "saakm_$name"
saakm_log_clean
done_testing
