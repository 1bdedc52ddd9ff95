#!/bin/bash
# The class's files form layers (the table at the top of saakm.c): no file
# calls into a higher layer, and no two files call each other in a loop
# (scripts/class-layers.py). A planted upward call must be caught.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
dir=$root/kernel/src/kernel/sched/saakm
if out=$(python3 "$root/scripts/class-layers.py" "$dir" 2>&1); then
	ok "the class's files call down their layers only" "$(tail -1 <<<"$out")"
else
	sed 's/^/# /' <<<"$out"
	not_ok "the class's files call down their layers only" "$(grep -c '^error' <<<"$out") violation(s)"
fi
# The checker itself: an ejection that calls the state machine (one layer up)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$dir"/*.c "$work"/
printf '\nvoid planted_upward_call(void)\n{\n\tsaakm_park(NULL, 0, false);\n}\n' >>"$work/saakm_eject.c"
out=$(python3 "$root/scripts/class-layers.py" "$work" 2>&1)
check "a planted call up a layer is reported" grep -q "saakm_eject.c calls up into saakm_state.c" <<<"$out"
done_testing
