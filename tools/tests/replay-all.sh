#!/bin/bash
# Record every policy in a guest and replay each recording on the host:
# every policy must replay 100% matching a run recorded in the guest.
# Not part of make test: it boots a guest (take the guest lock).
#
#   tools/tests/replay-all.sh [--out DIR] [POLICY...]    (default: every policies/*/)
#
# The guest (normal kernel, 2 vCPUs) loads each policy in turn and runs
# `saakm record -p NAME -- sh -c 'hackbench; perf bench sched pipe'`; the
# host then runs `saakm replay` on each recording. Prints one line per
# policy (records, lost, the replay's verdict) and exits non-zero unless
# every recording is complete and matches. SAAKM_BIN: the saakm binary to
# use (default build/tools/saakm).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/scripts/lib.sh"

out=
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	-h | --help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
pols=("$@")
[ ${#pols[@]} -gt 0 ] || for d in "$root"/policies/*/; do pols+=("$(basename "$d")"); done
[ -n "$out" ] || out=$BUILD_DIR/replay-all-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
out=$(cd "$out" && pwd)
saakm=${SAAKM_BIN:-$BUILD_DIR/tools/saakm}
[ -x "$saakm" ] || die "$saakm missing: make tools"

# the guest: one recording per policy, nothing else
{
	echo "set -u"
	for p in "${pols[@]}"; do
		cat <<EOF
insmod '$root/policies/$p/saakm_$p.ko' || echo 'insmod $p failed'
'$saakm' record -p $p -m saakm_$p -o '$out/$p.rec' -- sh -c \
	'hackbench -g 2 -l 50 >/dev/null; perf bench sched pipe -l 5000 >/dev/null'
rmmod saakm_$p
EOF
	done
} >"$out/guest.sh"
bash "$root/scripts/vm.sh" -c 2 -t 900 -w "$out" -k "$KDIR" -l "$out/guest.console.log" \
	-e "sh '$out/guest.sh'" >"$out/guest.out" 2>&1 || {
	tail -20 "$out/guest.out"
	die "the recording guest failed (console: ${out#"$root"/}/guest.console.log)"
}

fails=0
for p in "${pols[@]}"; do
	rec=$out/$p.rec
	if [ ! -s "$rec" ]; then
		echo "$p: no recording"
		fails=$((fails + 1))
		continue
	fi
	head=$("$saakm" dump "$rec" | head -1)
	"$saakm" replay "$rec" "$root/policies/$p/saakm_$p.c" >"$out/$p.replay" 2>&1
	rc=$?
	echo "$p: $(grep -o 'records=[0-9]* lost=[0-9]*' <<<"$head"), replay exit $rc: $(tail -1 "$out/$p.replay")"
	[ "$rc" = 0 ] || fails=$((fails + 1))
done
exit $((fails > 0))
