#!/bin/sh
# A policy that calls a function that may sleep in a callback, which runs in
# atomic context, is reported by the debug kernel ("sleeping function called
# from invalid context") and the kernel goes on scheduling. The fault
# (saakm_faulty fault=sleep) takes a private mutex that is always free, so
# it never really sleeps and the check cannot deadlock. Opt-in: the report
# makes the runner fail this test, which is what the host test
# debug_catches_sleep checks on the debug kernel.
# saakm-test: opt-in
. "$(dirname "$0")/lib.sh"

saakm=$SAAKM_CLI
armed=/sys/module/saakm_faulty/parameters/armed

# new_prepare of a forked task runs in the parent, with the child's pi_lock
# held and interrupts off. The task arms the fault itself once it has joined,
# so that only its fork runs the faulty callback.
check "insmod saakm_faulty fault=sleep in=new_prepare" \
	insmod "$SAAKM_ROOT/tests/modules/saakm_faulty/saakm_faulty.ko" fault=sleep in=new_prepare
check "a task of the policy forks with the fault armed" timeout 60 "$saakm" run -p faulty -- \
	sh -c "echo 1 >$armed; /bin/true & wait"
echo 0 >"$armed"

log=$(log_since_start)
# Only the debug kernel (CONFIG_DEBUG_ATOMIC_SLEEP, which counts preemption)
# checks might_sleep() and sees a schedule in atomic context.
case $(uname -r) in
*-debug)
	if echo "$log" | grep -q 'BUG: sleeping function called from invalid context' &&
		echo "$log" | grep -q 'faulty_new_prepare'; then
		ok "the debug kernel reports the sleeping call in faulty_new_prepare"
	else
		not_ok "the debug kernel reports the sleeping call in faulty_new_prepare" \
			"no might_sleep() report naming faulty_new_prepare in the kernel log"
	fi
	if echo "$log" | grep -q 'scheduling while atomic'; then
		not_ok "the fault never really slept" "'scheduling while atomic' in the kernel log"
	else
		ok "the fault never really slept"
	fi
	;;
*)
	skip "the debug kernel reports the sleeping call" "not the debug kernel: $(uname -r)"
	skip "the fault never really slept" "not the debug kernel: $(uname -r)"
	;;
esac
check "the kernel is still running after the fault: a task of the policy forks and exits" \
	timeout 30 "$saakm" run -p faulty -- sh -c '/bin/true & wait'
# (an exited task leaves the policy at its last switch, just after its reap)
faulty_row() { echo "$(policy_tasks faulty) $(policy_state faulty)"; }
faulty_idle() { [ "$(faulty_row)" = "0 enabled" ]; }
wait_for 5 faulty_idle
row=$(faulty_row)
[ "$row" = "0 enabled" ] && ok "faulty is still enabled, with no task left" ||
	not_ok "faulty is still enabled, with no task left" "tasks and state: ${row:-gone}"
check "rmmod saakm_faulty" rmmod saakm_faulty
done_testing
