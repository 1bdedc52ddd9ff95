#!/bin/bash
# Host unit tests and seeded stress of SaaKM policies, on libusim (no guest).
#
#   tests/policy/run.sh                 what make test runs (about 40 s)
#   tests/policy/run.sh --policy NAME   NAME's unit tests and stress seeds only:
#                                       the edit-to-verdict loop (make policy-test P=NAME)
#   tests/policy/run.sh --soak N        N stress scenarios per policy (optimized build)
#   tests/policy/run.sh --soak N --san  the same with ASan+UBSan
#   options: --seed S (first seed of the soak, default 1), --jobs J (default: CPUs),
#            O=/abs/dir in the environment (default build/policy-tests)
#
# Builds into O (tests/policy/Makefile), then prints TAP (tests/guest/tap.sh),
# each program's own lines indented below its line, and ends with
# "N passed, N failed". Exit status 0 only if everything passed.
#
# What it checks: every policy source compiles unchanged against libusim;
# anything outside the policy subset does not (and the error names the
# subset); each policy's unit tests (tests/policy/t_NAME.c); a fixed set of
# stress seeds per policy; and that the stress finds the planted bugs of
# tests/policy/fifo_hotplug_bug and tests/policy/locality_llc_bug, printing
# the seed (and that locality's unit tests catch the second one too).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
O=${O:-$root/build/policy-tests}
. "$root/tests/guest/tap.sh"

soak= san= only= first_seed=1 jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
	case $1 in
	--soak) soak=$2; shift ;;
	--san) san=1 ;;
	--seed) first_seed=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--policy) only=$2; shift ;;
	*) echo "usage: $0 [--policy NAME] [--soak N [--san] [--seed S]] [--jobs J]" >&2; exit 2 ;;
	esac
	shift
done

# Stress arguments per policy: the parameter sets scenarios choose from,
# and the policy tasks join.
declare -A STRESS_ARGS=(
	[fifo]="-P slice_ms=20 -P slice_ms=0 -P slice_ms=1 -P 'slice_ms=4 steal=Y' -P 'slice_ms=20 steal=Y'"
	[nullpol]="-p null0,null1 -P count=2 -P count=5"
	# starve_ms below the stress's 250 ms watchdog (the default, 1000, is for 5 s)
	[eevdf]="-P starve_ms=100 -P 'starve_ms=100 run_to_parity=N' -P 'starve_ms=50 base_slice_us=3000' -P 'starve_ms=100 balance_ms=4' -P 'starve_ms=100 balance_ms=0' -P 'starve_ms=200 base_slice_us=100'"
	[wfq]="-P 'slice_ms=3 max_wait_ms=100' -P 'slice_ms=1 balance_ms=4 balance_max=2 max_wait_ms=100' -P 'slice_ms=10 wakeup_gran_us=0 max_wait_ms=100' -P 'slice_ms=100 max_wait_ms=10 balance_ms=1 balance_max=64'"
	# 30 us slices cost about 5 ms of CPU per scenario (a preemption every
	# 30 us on every busy CPU), 5 us ones 25 ms: kept to the unit tests.
	[shinjuku]="-P slice_us=30 -P slice_us=200 -P slice_us=2000"
	# random cache topologies (-T), every placement checked (-L)
	[locality]="-T -L -P slice_ms=10 -P 'slice_ms=1 balance_ms=1' -P 'slice_ms=4 balance_ms=0' -P 'slice_ms=100 balance_ms=200'"
	[fifo_hotplug_bug]="-P slice_ms=20 -P slice_ms=0 -P 'slice_ms=4 steal=Y'"
	[locality_llc_bug]="-T -L -P slice_ms=10 -P 'slice_ms=4 balance_ms=0'"
)
# The policies are the ones tests/policy/Makefile lists (POLICIES, which
# takes every policies/NAME/saakm_NAME.c by itself): being there is the one
# step that compiles a policy against libusim, runs its unit tests
# (tests/policy/t_NAME.c, if there is one) and stresses it, with
# the parameter sets of STRESS_ARGS above if it has an entry. The planted
# bugs are checked apart: the stress must fail on each, with a failure
# that starts as PLANTED_FAILURE says (an extended regular expression).
# usim_selftest exists to test libusim's services: its
# naive virtual-runtime order can starve a low-weight task past the
# stress's 250 ms watchdog (the stress finds that), so it is not stressed.
PLANTED="fifo_hotplug_bug locality_llc_bug"
declare -A PLANTED_FAILURE=(
	[fifo_hotplug_bug]="stall|invariant"
	[locality_llc_bug]="placement"
)
declare -A PLANTED_WHAT=(
	[fifo_hotplug_bug]="the task lost on hotplug"
	[locality_llc_bug]="the task placed outside its LLC while a CPU there idles"
)
NOT_STRESSED="usim_selftest"
MAKE_SEEDS=200			# make test: seeds 1..200 per policy (sanitized)

summary() {
	echo "$TAP_PASSED passed, $TAP_FAILED failed"
	[ "$TAP_FAILED" = 0 ]
	exit $?
}

# stress NAME BINARY ARGS...: run the stress binary with the policy's arguments
stress() {
	local name=$1 bin=$2
	shift 2
	eval "\"$O/$name/$bin\" $* ${STRESS_ARGS[$name]:-}"
}

# stress_check DESC NAME BIN ARGS...: run the stress, show its lines, one
# TAP line; the ok line's comment is what stress_note makes of the output
stress_check() {
	local desc=$1 out rc
	shift
	out=$(stress "$@" 2>&1)
	rc=$?
	grep -v '^1\.\.' <<<"$out" | sed 's/^/    /'
	if [ "$rc" = 0 ]; then
		ok "$desc" "$(stress_note "$out")"
	else
		not_ok "$desc" "a seed failed, see above"
	fi
}

if [ -n "$only" ] && ! grep -qw -- "$only" <<<"$(make -s -C "$here" O="$O" names)"; then
	echo "error: no policy '$only' in tests/policy/Makefile (POLICIES: $(make -s -C "$here" O="$O" names))" >&2
	exit 2
fi
if ! out=$(make -s -C "$here" O="$O" ${only:+ONLY=$only} 2>&1); then
	echo "$out" | sed 's/^/# /'
	not_ok "build libusim and the policy tests${only:+ of $only}"
	summary
fi

# One policy: its unit tests, then its stress seeds.
if [ -n "$only" ]; then
	if [ -x "$O/$only/t_$only" ]; then
		out=$("$O/$only/t_$only" 2>&1)
		rc=$?
		sed 's/^/    /' <<<"$out"
		[ "$rc" = 0 ] && ok "$only: unit tests" "$(grep -c '^ok ' <<<"$out") passed" ||
			not_ok "$only: unit tests" "exit status $rc, $(grep -c '^not ok ' <<<"$out") failed"
	fi
	stress_note() { sed -n 's/.* in \([0-9.]* s\)$/\1/p' <<<"$1"; }
	# a policy the suite does not stress (it tests the simulator) is not stressed here either
	if grep -qw "$only" <<<"$NOT_STRESSED"; then
		skip "$only: stress" "not a policy to stress (NOT_STRESSED)"
	else
		stress_check "$only: stress, seeds 1..$MAKE_SEEDS" "$only" stress-san -s 1 -n "$MAKE_SEEDS" -j "$jobs"
	fi
	tap_plan
	summary
fi
POLICIES= STRESSED=
for name in $(make -s -C "$here" O="$O" names); do
	grep -qw -- "$name" <<<"$PLANTED" && continue
	POLICIES+="$name "
	grep -qw "$name" <<<"$NOT_STRESSED" || STRESSED+="$name "
done
for name in "${!STRESS_ARGS[@]}"; do
	case " $POLICIES $PLANTED " in
	*" $name "*) ;;
	*) not_ok "STRESS_ARGS[$name] names a policy of tests/policy/Makefile" "no policy $name there" ;;
	esac
done

if [ -n "$soak" ]; then
	bin=stress; [ -n "$san" ] && bin=stress-san
	for name in $STRESSED; do
		t0=$(date +%s.%N)
		stress_note() { printf '%.1f s' "$(echo "$(date +%s.%N) - $t0" | bc)"; }
		stress_check "$name: soak, $soak scenarios ($bin, $jobs jobs)" \
			"$name" "$bin" -s "$first_seed" -n "$soak" -j "$jobs"
	done
	summary
fi

# 1. The unchanged sources compiled (the build above compiled them).
for name in $POLICIES; do
	[ -f "$O/$name/policy-san.o" ] && ok "$name: source compiles unchanged against libusim" ||
		not_ok "$name: source compiles unchanged against libusim"
done

# 2. The subset is enforced, and the error says what a policy may use.
subset_case() { # DESC C-SOURCE EXPECTED-MESSAGE
	local src=$O/subset-case.c out
	printf '%s\n' "$2" >"$src"
	if out=$("$root/tools/usim/policy-cc" "$O/usim" -c "$src" -o "$O/subset-case.o" 2>&1); then
		not_ok "subset: $1" "compiled"
	elif grep -qF "$3" <<<"$out"; then
		ok "subset: $1"
	else
		echo "$out" | sed 's/^/# /'
		not_ok "subset: $1" "failed without naming the subset"
	fi
}
subset_case "a kernel header outside it (<linux/workqueue.h>) does not compile" \
	'#include <linux/saakm.h>
#include <linux/workqueue.h>' "(SaaKM policy subset)"
subset_case "a header of the kernel tools tree (<linux/kernel.h>) does not compile" \
	'#include <linux/saakm.h>
#include <linux/kernel.h>' "<linux/kernel.h> is not in the SaaKM policy subset"
subset_case "a kernel function outside it (schedule_work) does not compile" \
	'#include <linux/saakm.h>
void f(void) { schedule_work(NULL); }' "(SaaKM policy subset)"

# 3. Unit tests, with ASan and UBSan.
for t in "$here"/t_*.c; do
	name=$(basename "$t" .c)
	name=${name#t_}
	t0=$(date +%s.%N)
	out=$("$O/$name/t_$name" 2>&1)
	rc=$?
	secs=$(echo "$(date +%s.%N) - $t0" | bc)
	sed 's/^/    /' <<<"$out"
	n=$(grep -c '^ok ' <<<"$out")
	if [ "$rc" = 0 ]; then
		ok "$name: unit tests" "$n passed in $(printf '%.2f' "$secs") s"
	else
		not_ok "$name: unit tests" "exit status $rc, $(grep -c '^not ok ' <<<"$out") failed"
	fi
done

# 4. Stress, fixed seeds, with ASan and UBSan.
for name in $STRESSED; do
	stress_note() { sed -n 's/.* in \([0-9.]* s\)$/\1/p' <<<"$1"; }
	stress_check "$name: stress, seeds 1..$MAKE_SEEDS" "$name" stress-san -s 1 -n "$MAKE_SEEDS" -j "$jobs"
done

# 5. The planted bugs: the stress must fail on each, name the seed, and say why.
for bug in $PLANTED; do
	desc="planted bug ($bug): the stress finds ${PLANTED_WHAT[$bug]}"
	out=$(stress "$bug" stress-san -s 1 -n "$MAKE_SEEDS" -j 1 2>&1)
	rc=$?
	seed=$(sed -nE "s/^# seed ([0-9]+) FAILED: (${PLANTED_FAILURE[$bug]}).*/\1/p" <<<"$out" | head -n 1)
	if [ "$rc" = 1 ] && [ -n "$seed" ]; then
		grep -m 1 '^# seed' <<<"$out" | sed 's/^/    /'
		ok "$desc" "seed $seed"
		# ... and the seed it printed reproduces it.
		if stress "$bug" stress-san -s "$seed" -n 1 >/dev/null 2>&1; then
			not_ok "planted bug ($bug): seed $seed reproduces the failure"
		else
			ok "planted bug ($bug): seed $seed reproduces the failure"
		fi
	else
		echo "$out" | tail -n 20 | sed 's/^/    /'
		not_ok "$desc" "exit status $rc"
	fi
done

# ... and locality's placement unit tests catch its planted bug too (the
# same tests pass on the policy itself, in step 3).
out=$("$O/locality_llc_bug/t_locality" 2>&1)
rc=$?
failed=$(grep '^not ok ' <<<"$out")
if [ "$rc" = 1 ] && [ -n "$failed" ] && ! grep -qv '^not ok [0-9]* placement: ' <<<"$failed"; then
	sed 's/^/    /' <<<"$failed"
	ok "planted bug (locality_llc_bug): locality's unit tests catch it" \
		"$(wc -l <<<"$failed") placement tests failed"
else
	echo "$out" | tail -n 20 | sed 's/^/    /'
	not_ok "planted bug (locality_llc_bug): locality's unit tests catch it" \
		"exit status $rc; only placement tests may fail, and one must"
fi

tap_plan
summary
