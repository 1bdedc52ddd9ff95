#!/bin/sh
# A policy that sleeps in a callback (atomic context) must be reported by
# the kernel ("scheduling while atomic", and "sleeping function called from
# invalid context" on the debug kernel), not hang it. Opt-in: the report
# makes the runner fail this test, which is what the host test
# runner_catches_warn checks.
# saakm-test: opt-in
. "$(dirname "$0")/lib.sh"

# new_prepare of a forked task runs in the parent, with the child's pi_lock
# held: sleeping there is a bug the kernel reports, and survives. (Sleeping
# in a callback run from interrupt context, e.g. a timer wakeup, hangs the
# CPU: nothing can report that from inside.)
# (Joining runs new_prepare under the rq lock, where a sleep deadlocks: arm
# the fault only once the task has joined.)
check "insmod saakm_faulty fault=sleep in=new_prepare" \
	insmod "$SAAKM_ROOT/tests/modules/saakm_faulty/saakm_faulty.ko" fault=sleep in=new_prepare
check "a task of the policy forks" "$SAAKM_ROOT/build/tools/saakm" run -p faulty -- \
	sh -c 'echo 1 >/sys/module/saakm_faulty/parameters/armed; /bin/true & wait'
echo 0 >/sys/module/saakm_faulty/parameters/armed
ok "the kernel is still running after the policy slept in new_prepare"
check "rmmod saakm_faulty" rmmod saakm_faulty
done_testing
