#!/bin/sh
# A policy that reads the time replays exactly: the eevdf port's
# starvation guard (starve_ms) runs a task that has waited that long, and
# it reads the time through saakm_clock_ns(), which the recorder records
# and replay serves. Record the port with starve_ms=10 while a nice -20
# and a nice 19 spinner share CPU 1 for 2 s (EEVDF alone would run the
# nice 19 one for a tick about every 24 s: here the guard runs it every
# ~10 ms), then replay the recording against policies/eevdf/saakm_eevdf.c:
# every record must match. Before saakm_clock_ns() the guard read jiffies,
# which replay could only derive from the records' times, and the replay
# diverged at a guarded pick.
# saakm-test: timeout=600
# shellcheck disable=SC2015 # "A && ok || not_ok", as in the other tests
. "$(dirname "$0")/lib.sh"

saakm=$SAAKM_CLI
ko=$SAAKM_ROOT/policies/eevdf/saakm_eevdf.ko
src=$SAAKM_ROOT/policies/eevdf/saakm_eevdf.c
knob=/sys/kernel/saakm/record
tmp=$(mktemp -d)
export XDG_CACHE_HOME=$tmp/cache	# replay programs are cached per user
replay_cache_init

clock_exit() {
	_rc=$?
	trap - EXIT
	[ -w "$knob" ] && echo 0 >"$knob"
	saakm_cleanup
	rm -rf "$tmp"
	exit "$_rc"
}
trap clock_exit EXIT

if [ ! -e "$knob" ] || ! command -v gcc >/dev/null 2>&1; then
	skip "record and replay the eevdf port's guard" "no SaaKM recorder ($knob) or no gcc"
	done_testing
fi

# The workload: two spinners on CPU 1, at nice -20 and nice 19, for 2 s.
cat >"$tmp/work.sh" <<EOF
spin() { nice -n "\$1" timeout 2 taskset -c 1 sh -c 'echo \$\$ >$tmp/pid\$0; while :; do :; done' "\$1"; }
spin -20 & spin 19 &
wait
exit 0
EOF

check "insmod saakm_eevdf starve_ms=10" insmod "$ko" starve_ms=10
"$saakm" record -p eevdf -m saakm_eevdf -o "$tmp/g.rec" -- sh "$tmp/work.sh" >"$tmp/rec.out" 2>&1
_rc=$?
sed 's/^/# /' "$tmp/rec.out"
[ "$_rc" = 0 ] && ok "saakm record of two spinners under the port" ||
	not_ok "saakm record of two spinners under the port" "status $_rc"
check "the port unloads" rmmod saakm_eevdf

"$saakm" dump "$tmp/g.rec" >"$tmp/g.txt" 2>&1
_head=$(head -2 "$tmp/g.txt" | tr '\n' ' ')
diag "$_head"
_n=$(echo "$_head" | sed -n 's/.* records=\([0-9]*\) .*/\1/p')
_lost=$(echo "$_head" | sed -n 's/.* lost=\([0-9]*\) .*/\1/p')
[ "${_n:-0}" -gt 100 ] && [ "$_lost" = 0 ] && echo "$_head" | grep -q "starve_ms=10" &&
	ok "recording has records, lost none, and names starve_ms=10" ||
	not_ok "recording has records, lost none, and names starve_ms=10" "$_head"

# The guard at work: the nice 19 spinner is picked about every 10 ms.
_light=$(cat "$tmp/pid19" 2>/dev/null)
_picks=$(grep -c "RET   schedule cpu 1 -> pid ${_light:-none}\$" "$tmp/g.txt")
_clock=$(grep -c "INPUT clock" "$tmp/g.txt")
diag "nice 19 spinner (pid ${_light:-?}) picked $_picks times; $_clock clock inputs"
[ "$_picks" -ge 50 ] && ok "the guard ran the nice 19 spinner ($_picks picks in 2 s)" ||
	not_ok "the guard ran the nice 19 spinner" "$_picks picks in 2 s, want >= 50"
[ "$_clock" -gt 0 ] && ok "the port's reads of the time are recorded ($_clock INPUT clock)" ||
	not_ok "the port's reads of the time are recorded" "no INPUT clock record"

replay_matches "$tmp/g.rec" "$src" "$_n" "replay of the port matches 100%, guarded picks included" \
	saakm_record_clock
saakm_log_clean
done_testing
