#!/bin/sh
# Two choices of the benchmark runner (bench/guest.sh, one tiny repetition),
# checked from what each run records after its output:
#   --ext own            a sched_ext scheduler is enabled only during its own
#                        configuration's runs (BENCH_EXT=own)
#   per-configuration    two configurations share a module (wfq, wfq_gran0)
#   module parameters    and each run has its own parameter values
#   feat= flag           a scheduler feature set for one configuration's runs
#                        (eevdf_nodd: NO_DELAY_DEQUEUE), and reverted
# saakm-test: timeout=300
# saakm-test: normal-only
. "$(dirname "$0")/lib.sh"

bench_setup bench-runner
# wfq after wfq_gran0: its run must get the default back
configs="ext eevdf_nodd wfq_gran0 wfq"
if BENCH_EXT=own BENCH_SIZE=smoke BENCH_REPS=1 BENCH_CONFIGS="$configs" BENCH_WORKLOADS=wakelat \
	sh "$SAAKM_ROOT/bench/guest.sh" "$out" >"$out.log" 2>&1; then
	ok "bench/guest.sh smoke run with --ext own, eevdf_nodd and two wfq configurations completed"
else
	sed 's/^/# /' "$out.log" | tail -20
	not_ok "bench/guest.sh smoke run completed" "$(cat "$out/error" 2>/dev/null)"
	done_testing
fi
# recorded: sched_ext=<state>:<ops>:switch_all=<0|1> and params=<name=value,...>
rec() { sed -n "s/^$2=//p" "$out/raw/wakelat.$1.1.out" | tail -1; }

# --ext own: enabled under ext's run only, not under the SaaKM ones
check "--ext own: ext_fifo enabled during ext's run" \
	sh -c "[ '$(rec ext sched_ext)' = enabled:ext_fifo:switch_all=0 ]"
for c in wfq wfq_gran0; do
	check "--ext own: sched_ext disabled during $c's run ($(rec $c sched_ext))" \
		sh -c "[ '$(rec $c sched_ext | cut -d: -f1)' = disabled ]"
done

# parameters: wfq_gran0 runs with its own; wfq, after it, with the default
case ",$(rec wfq params)," in
*,wakeup_gran_us=3000,*) ok "wfq ran with wakeup_gran_us=3000 (the default)" ;;
*) not_ok "wfq ran with wakeup_gran_us=3000 (the default)" "params=$(rec wfq params)" ;;
esac
case ",$(rec wfq_gran0 params)," in
*,wakeup_gran_us=0,*) ok "wfq_gran0 ran with wakeup_gran_us=0" ;;
*) not_ok "wfq_gran0 ran with wakeup_gran_us=0" "params=$(rec wfq_gran0 params)" ;;
esac
# a read-only parameter is reported, never written
case ",$(rec wfq params)," in
*,balance_ms=32,*) ok "read-only balance_ms reported as loaded (32)" ;;
*) not_ok "read-only balance_ms reported as loaded (32)" "params=$(rec wfq params)" ;;
esac

# feat=NO_DELAY_DEQUEUE: in effect during eevdf_nodd's run, not after it
check "eevdf_nodd ran with NO_DELAY_DEQUEUE ($(rec eevdf_nodd sched_feature))" \
	sh -c "[ '$(rec eevdf_nodd sched_feature)' = NO_DELAY_DEQUEUE ]"
check "DELAY_DEQUEUE back on after the runs" \
	grep -qw DELAY_DEQUEUE /sys/kernel/debug/sched/features
done_testing
