#!/bin/bash
# Build tools/ and run its host unit tests (no SaaKM kernel needed): the
# libsaakm parser test, the CLI test, the record/replay tests, the man
# page, the bash completion, make install and saakm-loader. Prints TAP
# (tests/guest/tap.sh): one line per test program, its own TAP lines
# indented below it as a subtest; exits non-zero if any failed. O=/abs/dir
# selects the build directory (default build/tools).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
O=${O:-$root/build/tools}
. "$root/tests/guest/tap.sh"

# run_program DESC COMMAND...: run COMMAND, indent its TAP, one line for it
run_program() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	sed 's/^/    /' <<<"$out"
	if [ "$rc" = 0 ]; then
		ok "$desc" "$(grep -c '^ok ' <<<"$out") passed"
	else
		not_ok "$desc" "exit status $rc, $(grep -c '^not ok ' <<<"$out") failed"
	fi
}

if ! out=$(make -s -C "$root/tools" O="$O" test-progs 2>&1); then
	echo "$out" | sed 's/^/# /'
	not_ok "build tools"
	done_testing
fi
run_program "libsaakm parser (test_parser)" "$O/tests/test_parser" "$here/fixtures"
run_program "saakm CLI (t_cli.sh)" bash "$here/t_cli.sh" "$O/saakm"
run_program "recording files (test_rec)" "$O/tests/test_rec" "$here/fixtures"
run_program "saakm record/convert/trace-json (t_record.sh)" bash "$here/t_record.sh" "$O/saakm" "$O/tests/mkbuf"
run_program "saakm replay (t_replay.sh)" bash "$here/t_replay.sh" "$O/saakm" "$O/tests/gen_fifo" \
	"$O/tests/gen_wfq"
run_program "saakm(1) man page (t_man.sh)" bash "$here/t_man.sh" "$O/saakm" "$O/saakm.1"
run_program "bash completion (t_completion.sh)" bash "$here/t_completion.sh" "$O/saakm"
run_program "make install and uninstall (t_install.sh)" bash "$here/t_install.sh" "$O"
run_program "saakm new (t_new.sh)" bash "$here/t_new.sh" "$O/saakm"
run_program "saakm-loader (t_loader.sh)" bash "$here/t_loader.sh" "$O/saakm"
done_testing
