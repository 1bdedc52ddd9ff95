#!/bin/sh
# saakm record / saakm replay end to end: record the FIFO policy while a
# small workload runs in it (four children that spin, sleep and exit, and
# hackbench if installed), check the recording (records, nothing lost, the
# module's parameters, the knob off and the kernel's buffers freed), then
# replay it against policies/fifo/saakm_fifo.c compiled for user space:
# every record must match. A LIFO variant of fifo (one line changed) must
# diverge, and trace-json must give valid JSON. Done with steal=1
# (newly_idle, balance_pick, can_migrate inputs, and read_cpu inputs:
# newly_idle reads other CPUs' queues without their lock through
# saakm_read_cpu(), so replay serves what it read), and in make test-full
# with fifo's defaults too.
# Needs the kernel's recorder (/sys/kernel/saakm/record,
# /proc/saakm/record_buf) and gcc.
# saakm-test: timeout=600
# shellcheck disable=SC2015 # "A && ok || not_ok", as in the other tests
. "$(dirname "$0")/lib.sh"

saakm=$SAAKM_CLI
ko=$SAAKM_ROOT/policies/fifo/saakm_fifo.ko
src=$SAAKM_ROOT/policies/fifo/saakm_fifo.c
knob=/sys/kernel/saakm/record
buf=/proc/saakm/record_buf
tmp=$(mktemp -d)
# replay programs are cached per user: keep this test's apart, starting
# from the ones make test-progs built on the host
export XDG_CACHE_HOME=$tmp/cache
replay_cache_init

rec_exit() {
	_rc=$?
	trap - EXIT
	[ -w "$knob" ] && echo 0 >"$knob"
	saakm_cleanup
	[ -w "$buf" ] && echo 0 >"$buf"
	rm -rf "$tmp"
	exit "$_rc"
}
trap rec_exit EXIT

if [ ! -e "$knob" ] || [ ! -e "$buf" ]; then
	skip "record and replay fifo" "this kernel has no SaaKM recorder ($knob)"
	done_testing
fi
if ! command -v gcc >/dev/null 2>&1; then
	skip "record and replay fifo" "no gcc to build the replay program"
	done_testing
fi

# The workload, as "sh work.sh": four children forked under the policy
# spin, sleep, spin again and exit; then hackbench, if installed.
cat >"$tmp/work.sh" <<'EOF'
for i in 1 2 3 4; do
	sh -c 'n=0; while [ $n -lt 3000 ]; do n=$((n + 1)); done
		sleep 0.05; n=0; while [ $n -lt 3000 ]; do n=$((n + 1)); done' &
done
wait
command -v hackbench >/dev/null 2>&1 && hackbench -g 2 -l 50 >/dev/null
exit 0
EOF

# The LIFO variant: schedule() takes the last queued task instead of the first.
sh "$SAAKM_ROOT/tests/guest/fifo-lifo.sh" "$tmp/lifo" && ok "LIFO variant of fifo made (one line changed)" ||
	not_ok "LIFO variant of fifo made (one line changed)" "the sed pattern no longer matches saakm_fifo.c"

# round NAME [PARAMS]: load fifo with PARAMS, record the workload, replay
round() {
	_name=$1; shift
	_rec=$tmp/$_name.rec
	check "$_name: insmod saakm_fifo $*" insmod "$ko" "$@"
	_t0=$(date +%s.%N)
	"$saakm" record -p fifo -o "$_rec" -- sh "$tmp/work.sh" >"$tmp/$_name.out" 2>&1
	_rc=$?
	_t1=$(date +%s.%N)
	sed 's/^/# /' "$tmp/$_name.out"
	diag "$_name: recorded in $(echo "$_t0 $_t1" | awk '{ printf "%.2f", $2 - $1 }') s"
	[ "$_rc" = 0 ] && ok "$_name: saakm record of the workload" ||
		not_ok "$_name: saakm record of the workload" "status $_rc"
	check "$_name: fifo unloads" rmmod saakm_fifo
	# struct saakm_rec_buf_info: buf_kb (u32 at byte 20) is 0 once freed
	_kb=$(head -c 40 "$buf" | od -An -t u4 -j 20 -N 4 | tr -d ' ')
	[ "$_kb" = 0 ] && [ "$(cat "$knob")" = 0 ] &&
		ok "$_name: knob back to 0, the kernel's buffers freed" ||
		not_ok "$_name: knob back to 0, the kernel's buffers freed" "knob $(cat "$knob"), buffers of ${_kb:-?} KiB"

	_head=$("$saakm" dump "$_rec" 2>&1 | head -2)
	_n=$(echo "$_head" | sed -n 's/.* records=\([0-9]*\) .*/\1/p')
	_lost=$(echo "$_head" | sed -n 's/.* lost=\([0-9]*\) .*/\1/p')
	diag "$_name: $(echo "$_head" | tr '\n' ' ')"
	[ "${_n:-0}" -gt 100 ] && [ "$_lost" = 0 ] && ok "$_name: recording has records and lost none" ||
		not_ok "$_name: recording has records and lost none" "$_head"
	# the kernel folds a call's RET and its first STATE into its CALL's
	# slot: fewer slots than records that are not RETs
	_sum=$(sed -n 's/^saakm: \([0-9]*\) records (\([0-9]*\) calls, \([0-9]*\) slots).*/\1 \2 \3/p' "$tmp/$_name.out")
	echo "$_sum" | awk 'NF == 3 && $3 < $1 - $2 { ok = 1 } END { exit !ok }' &&
		ok "$_name: STATEs folded into their calls' slots (records, calls, slots: $_sum)" ||
		not_ok "$_name: STATEs folded into their calls' slots" "records, calls, slots: ${_sum:-not in the summary}"
	echo "$_head" | grep -q "policy=fifo module=saakm_fifo " && echo "$_head" | grep -q "slice_ms=20" &&
		ok "$_name: header names the policy, module and parameters" ||
		not_ok "$_name: header names the policy, module and parameters" "$_head"

	_t0=$(date +%s.%N)
	replay_matches "$_rec" "$src" "$_n" "$_name: replay of fifo matches 100%" "saakm_record-$_name"
	_t1=$(date +%s.%N)
	diag "$_name: replay (build included) in $(echo "$_t0 $_t1" | awk '{ printf "%.2f", $2 - $1 }') s"
	if [ "$_name" = steal ]; then
		_reads=$("$saakm" dump "$_rec" | grep -c "INPUT read_cpu")
		[ "$_reads" -gt 0 ] && ok "$_name: newly_idle's reads of the other CPU's queue recorded ($_reads)" ||
			not_ok "$_name: newly_idle's reads of the other CPU's queue recorded" "no INPUT read_cpu"
	fi

	"$saakm" replay "$_rec" "$tmp/lifo/saakm_fifo.c" --last 5 >"$tmp/$_name.lifo" 2>&1
	_rc=$?
	sed 's/^/# /' "$tmp/$_name.lifo" | head -12
	[ "$_rc" = 1 ] && grep -q "DIVERGENCE at record" "$tmp/$_name.lifo" &&
		grep -q "expected: STATE pid .* READY -> RUNNING" "$tmp/$_name.lifo" &&
		ok "$_name: the LIFO variant diverges at a pick" ||
		not_ok "$_name: the LIFO variant diverges at a pick" "status $_rc"

	if command -v python3 >/dev/null 2>&1; then
		"$saakm" trace-json "$_rec" -o "$tmp/$_name.json" >/dev/null 2>&1 &&
			python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert any(e.get("ph") == "X" for e in d["traceEvents"])' "$tmp/$_name.json" &&
			ok "$_name: trace-json gives valid JSON with task runs" ||
			not_ok "$_name: trace-json gives valid JSON with task runs"
	fi
}

# make test records once, with steal=1, whose run takes every path of the
# default one and more; make test-full adds a round with fifo's defaults.
[ "${SAAKM_FULL:-0}" = 1 ] && round default
round steal steal=1
saakm_log_clean
done_testing
