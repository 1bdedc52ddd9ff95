#!/bin/sh
# saakm-loader keeps a policy loaded through ejections and gives up at its
# limit. It loads saakm_faulty with fault=error in=schedule armed=1, which
# ejects itself as soon as a task runs on it, while a loop keeps putting a
# short task on the policy. The loader must log each ejection with the
# kind and reason of /proc/saakm/errors, unload the policy and load it
# again after its backoff, and at the third ejection (max_ejections = 3)
# exit with status 3, leaving the policy unloaded and the kernel log free
# of reports. Then the same with a policy that stalls (fault=never_pick:
# it picks nothing), which the class's watchdog ejects after timeout_ms.
# saakm-test: timeout=180
. "$(dirname "$0")/lib.sh"

loader=$SAAKM_ROOT/tools/saakm-loader
ko_dir=$SAAKM_ROOT/tests/modules/saakm_faulty
tmp=$(mktemp -d)
conf=$tmp/loader.conf
log=$tmp/loader.log
# every wait of this test is bounded by one of these (seconds)
LOADER_LIMIT=120
reason="error: injected error in schedule"

if [ ! -x "$SAAKM_CLI" ] || [ ! -f "$ko_dir/saakm_faulty.ko" ]; then
	not_ok "the saakm CLI and saakm_faulty.ko are built" "make tools modules"
	done_testing
fi
if [ -n "$(policy_state faulty)" ]; then
	not_ok "no policy faulty loaded before the test" "state $(policy_state faulty)"
	done_testing
fi

cat >"$conf" <<EOF
# saakm_faulty ejects itself at its first schedule()
policy = faulty
params = fault=error in=schedule armed=1
max_ejections = 3
window_minutes = 10
backoff_initial_s = 1
poll_ms = 100
EOF

# start_loader CONF: the loader in a subshell that writes its exit status
# to $tmp/rc, and a loop that keeps putting a short task on the policy (it
# fails while the policy is ejected or absent) until $tmp/stop exists. With
# SAAKM_POLICY_PATH, 'saakm load faulty' finds DIR/saakm_faulty.ko.
start_loader() {
	rm -f "$tmp/rc" "$tmp/stop"
	(
		SAAKM=$SAAKM_CLI SAAKM_POLICY_PATH=$ko_dir "$loader" -c "$1" >"$log" 2>&1
		echo $? >"$tmp/rc"
	) &
	loader_sh=$!
	(
		while [ ! -e "$tmp/stop" ]; do
			timeout 20 "$SAAKM_CLI" run -p faulty true >/dev/null 2>&1
			sleep 0.1
		done
	) &
	worker=$!
}

# gives_up DESC: ok if the loader exits with 3 within LOADER_LIMIT; else it
# is killed
gives_up() {
	if ! wait_for "$LOADER_LIMIT" test -s "$tmp/rc"; then
		not_ok "$1" "still running after ${LOADER_LIMIT}s: killed"
		_saakm_kill_tree "$loader_sh"
	elif [ "$(cat "$tmp/rc")" = 3 ]; then
		ok "$1"
	else
		not_ok "$1" "exit status $(cat "$tmp/rc")"
	fi
}

tap_subtest "loader"
start_loader "$conf"

gives_up "the loader gives up with exit status 3"
touch "$tmp/stop"
wait "$worker"	# bounded: one more round of the loop at most
sed 's/^/# /' "$log"

# logged DESC COUNT REGEX: ok if exactly COUNT lines of the loader's log match REGEX
logged() {
	_n=$(grep -cE -- "$3" "$log")
	if [ "$_n" = "$2" ]; then ok "$1"; else not_ok "$1" "$_n lines match /$3/, expected $2"; fi
}

logged "the start line names the policy, its parameters and the limits" 1 \
	"^saakm-loader: keeping policy faulty loaded, parameters: fault=error in=schedule armed=1; giving up after 3 ejections within 10 minutes"
logged "loaded three times, from SAAKM_POLICY_PATH" 3 \
	"^saakm-loader: loaded policy faulty \(id [0-9]+\) from $ko_dir/saakm_faulty.ko$"
logged "each ejection logged with its kind and reason" 3 "^saakm-loader: policy faulty ejected: $reason$"
logged "unloaded after each ejection" 3 "^saakm-loader: unloaded policy faulty"
logged "the first reload after 1 s" 1 "^saakm-loader: reloading policy faulty in 1 s \(ejection 1 of 3 "
logged "the second after 2 s" 1 "^saakm-loader: reloading policy faulty in 2 s \(ejection 2 of 3 "
logged "the giving-up message" 1 "^saakm-loader: giving up: 3 ejections in 10 minutes; last: $reason$"
# load, eject, unload, in that order, each time
order=$(sed -n -e 's/^saakm-loader: loaded policy .*/L/p' -e 's/^saakm-loader: policy faulty ejected: .*/E/p' \
	-e 's/^saakm-loader: unloaded policy .*/U/p' -e 's/^saakm-loader: giving up: .*/G/p' "$log" | tr -d '\n')
if [ "$order" = LEULEULEUG ]; then
	ok "load, ejection, unload, three times, then giving up"
else
	not_ok "load, ejection, unload, three times, then giving up" "order $order"
fi

tap_subtest "a stall"
printf '%s\n' '# saakm_faulty picks no task: the watchdog ejects it after 500 ms' \
	'policy = faulty' 'params = fault=never_pick armed=1 timeout_ms=500' \
	'max_ejections = 1' 'backoff_initial_s = 1' 'poll_ms = 100' >"$tmp/stall.conf"
start_loader "$tmp/stall.conf"
gives_up "the loader gives up at the first stall with exit status 3"
touch "$tmp/stop"
wait "$worker"
sed 's/^/# /' "$log"
logged "the stall logged with its kind and reason" 1 "^saakm-loader: policy faulty ejected: stall: "
logged "the giving-up message names the stall" 1 "^saakm-loader: giving up: 1 ejections in 10 minutes; last: stall: "

tap_subtest "afterwards"
check "policy faulty is not loaded" test -z "$(policy_state faulty)"
check_not "module saakm_faulty is not loaded" grep -q '^saakm_faulty ' /proc/modules
# saakm_log_clean would count the injected errors: here each of them is
# expected, and anything else is a failure
kernel_errors=$(log_since_start | grep -E 'saakm: policy .*(invalid transition|\) error: )')
n_injected=$(echo "$kernel_errors" | grep -c "saakm: policy faulty (id [0-9]*) error: $reason$")
if [ "$n_injected" = 3 ]; then
	ok "the kernel logged the three injected errors"
else
	not_ok "the kernel logged the three injected errors" "$n_injected logged"
fi
# the stall is expected too: the watchdog's report of it (a task that
# waited, or a CPU that picked nothing, whichever it sees first)
other=$(echo "$kernel_errors" | grep -v "saakm: policy faulty (id [0-9]*) error: $reason$" |
	grep -v "saakm: policy faulty (id [0-9]*) error: stall: " | grep .)
if [ -z "$other" ]; then
	ok "no other SaaKM error in the kernel log"
else
	not_ok "no other SaaKM error in the kernel log" "$(echo "$other" | head -1)"
fi
reports=$(log_since_start | grep -E '\b(BUG|WARNING|KASAN|UBSAN):|\bOops\b|Call Trace:|circular locking|inconsistent lock state|suspicious RCU usage')
if [ -z "$reports" ]; then
	ok "no WARNING, BUG or lockdep report in the kernel log"
else
	not_ok "no WARNING, BUG or lockdep report in the kernel log" "$(echo "$reports" | head -1)"
fi
rm -rf "$tmp"
done_testing
