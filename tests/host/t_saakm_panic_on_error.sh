#!/bin/bash
# /sys/kernel/saakm/panic_on_error: with the switch at 1, a policy error
# panics the kernel after printing the reason, instead of ejecting the policy
# (for a developer with kdump or KGDB). Boots its own short guest (vm.sh),
# which reads the default (0), sets the switch, loads saakm_faulty with
# fault=error in=new_prepare and starts a task under it; the console log
# must show the SaaKM error line with its reason (in the panic message or
# before it), a kernel panic from the class, and nothing the guest would
# have run afterwards. (Ejection without a panic, the default, is checked
# by the guest test saakm_faults.)
# shellcheck disable=SC2016,SC2034 # the checks are eval'd strings
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/scripts/lib.sh"

log=${SAAKM_RESULTS:-$LOG_DIR}/panic_on_error.console.log
mkdir -p "$(dirname "$log")"
sw=/sys/kernel/saakm/panic_on_error
faulty=/sys/module/saakm_faulty/parameters
cmd="echo \"panic_on_error default: \$(cat $sw)\"
echo 1 >$sw
echo \"panic_on_error set: \$(cat $sw)\"
insmod tests/modules/saakm_faulty/saakm_faulty.ko fault=error in=new_prepare || exit 1
echo 1 >$faulty/armed
build/tools/saakm run -p faulty -- true
echo \"after the error: still running, faulty \$(grep -o 'faulty.*' /proc/saakm/policies)\""

timeout_s=$((120 * ${SAAKM_TIMEOUT_SCALE:-1}))
[ "${KERNEL_VARIANT:-}" = debug ] && timeout_s=$((timeout_s * 4))
t0=$SECONDS
# The guest is expected to panic: vm.sh's status (3, a kernel problem in the
# log, or 125, no exit status) is not the verdict; the console log is.
bash "$root/scripts/vm.sh" --timeout "$timeout_s" --log "$log" --exec "$cmd" >/dev/null 2>&1
echo "# vm.sh status $?, $((SECONDS - t0)) s, console log: ${log#"$root"/}"

n=0 fail=0
t() { n=$((n + 1)); if eval "$2"; then echo "ok $n $1"; else echo "not ok $n $1"; fail=1; fi; }
# first line number in the console log matching an extended regex, or 0
line_of() { grep -n -m1 -E "$1" "$log" | cut -d: -f1 | grep . || echo 0; }

err=$(line_of 'saakm: policy faulty .*error: .*injected error in new_prepare')
pan=$(line_of 'Kernel panic - not syncing')
grep -E 'panic_on_error|saakm: policy faulty|Kernel panic|after the error' "$log" | head -8 | sed 's/^/# /'

t "the guest booted and ran the command" 'grep -q "^panic_on_error default: " "$log"'
t "panic_on_error is 0 by default" 'grep -q "^panic_on_error default: 0" "$log"'
t "panic_on_error can be set to 1" 'grep -q "^panic_on_error set: 1" "$log"'
t "the policy error is printed with its reason" '[ "$err" -gt 0 ]'
# the reason may be in the panic message itself: same line or an earlier one
t "the kernel panics, no earlier than the error line" '[ "$err" -gt 0 ] && [ "$pan" -ge "$err" ]'
# the panic's message or its call trace (printed just after) names the class
t "the panic comes from SaaKM" \
	'[ "$pan" -gt 0 ] && sed -n "${pan},$((pan + 40))p" "$log" | grep -qiE "saakm|faulty"'
t "nothing ran after the error: the policy was not just ejected" '! grep -q "^after the error" "$log"'
echo "1..$n"
exit $fail
