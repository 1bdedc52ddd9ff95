#!/bin/bash
# Host test of saakm's bash completion (tools/saakm.bash-completion): sources
# it, sets COMP_WORDS/COMP_CWORD as bash would for a command line, calls the
# completion function and checks COMPREPLY: verbs, options from each verb's
# help, policy names from a fixture /proc/saakm, PIDs and files.
# Usage: t_completion.sh SAAKM_BINARY. Prints TAP (tests/guest/tap.sh).
set -u
saakm=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SAAKM_PROC=$here/fixtures/basic

# shellcheck source=../saakm.bash-completion
. "$here/../saakm.bash-completion"
if [ "$(complete -p saakm 2>/dev/null)" = "complete -F _saakm saakm" ]; then
	ok "the file registers _saakm for saakm"
else
	not_ok "the file registers _saakm for saakm" "complete -p saakm: $(complete -p saakm 2>&1)"
fi

# words WORD...: the WORDs sorted, without repeats, on one line
words() {
	printf '%s\n' "$@" | sed '/^$/d' | sort -u | paste -sd ' '
}

# complete_line WORD...: COMPREPLY for "saakm WORD..." with the cursor at the end
# of the last WORD, sorted, one line, in $got; anything the function printed
# fails the check that follows
complete_line() {
	local err
	COMP_WORDS=("$saakm" "$@")
	COMP_CWORD=$#
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	err=$(_saakm 2>&1 >/dev/null)
	_saakm >/dev/null 2>&1
	got=$(words "${COMPREPLY[@]}")
	[ -z "$err" ] || got="$got (stderr: $err)"
}

# expect DESC "WANTED" WORD...: COMPREPLY is exactly WANTED (sorted, spaces)
expect() {
	local desc=$1 want
	want=$(tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort -u | paste -sd ' ')
	shift 2
	complete_line "$@"
	if [ "$got" = "$want" ]; then
		ok "$desc"
	else
		not_ok "$desc" "saakm $*<TAB>: got '$got', expected '$want'"
	fi
}

# expect_has DESC "WORDS" WORD...: COMPREPLY holds each of WORDS
expect_has() {
	local desc=$1 w missing=
	shift
	local words=$1
	shift
	complete_line "$@"
	for w in $words; do
		grep -qw -- "$w" <<<" $got " || missing="$missing $w"
	done
	if [ -z "$missing" ]; then
		ok "$desc"
	else
		not_ok "$desc" "saakm $*<TAB>: lacks$missing (got '$got')"
	fi
}

tap_subtest verbs
expect "every verb of 'saakm help --verbs'" "$("$saakm" help --verbs)" ""
expect "a prefix" "$("$saakm" help --verbs | grep '^re')" re
expect "the global options" "--help --version" --
expect "help VERB: the verbs" "$("$saakm" help --verbs | grep '^e')" help e

tap_subtest options
expect_has "run: its options, from its help" "-p --policy -r --reset-on-fork -n --nice --attr --help" run -
expect "run: -a is set's only" "" run --al
expect "set: --all-tasks" "--all-tasks" set --al
expect_has "record: options from the synopsis and the option lines" "-p -o -b -m --no-join" record -
expect "help: its options" "--man --verbs --help" help --

tap_subtest "policy names"
expect "run -p" "fifo rr_test broken" run -p ""
expect "run --policy with a prefix" "fifo" run --policy f
expect "run --policy= (the = split off, as bash does)" "fifo rr_test broken" run --policy = ""
expect "run --policy=r (the = split off)" "rr_test" run --policy = r
expect "record -p after other options" "fifo rr_test broken" record -b 64 -p ""
expect "events NAME" "fifo rr_test broken" events ""
expect "cpus NAME with a prefix" "rr_test" cpus r
expect "unload NAME" "fifo rr_test broken" unload ""
expect "events takes one NAME" "" events fifo ""
expect "get: the files of its synopsis" "policies events errors cpus" get ""
expect "get FILE NAME" "fifo rr_test broken" get policies ""
expect "get FILE NAME KEY" "tasks timeout_ms" get policies fifo t
expect_has "get FILE NAME KEY: every key" "id name tasks state slot" get policies fifo ""
complete_line get policies fifo ""
if [[ " ${COMPREPLY[*]} " == *"  "* || -z ${COMPREPLY[0]:-} ]]; then
	not_ok "get FILE NAME KEY: no empty word" "got '${COMPREPLY[*]}'"
else
	ok "get FILE NAME KEY: no empty word"
fi
SAAKM_PROC=$tmp/none expect "no /proc/saakm: nothing, quietly" "" events ""

tap_subtest PIDs
expect_has "show PID" "$$" show "$$"
expect_has "set -p NAME PID" "$$" set -p fifo "$$"
expect_has "set: a second PID" "$$" set -p fifo 1 "$$"

tap_subtest files
mkdir "$tmp/d"
touch "$tmp/fifo.rec" "$tmp/fifo.c" "$tmp/other"
expect "dump FILE" "$tmp/fifo.c $tmp/fifo.rec" dump "$tmp/fi"
expect "replay FILE POLICY.c" "$tmp/fifo.c $tmp/fifo.rec" replay "$tmp/fifo.rec" "$tmp/f"
expect "trace-json FILE" "$tmp/d" trace-json "$tmp/d"
expect "trace-json FILE -o OUT" "$tmp/other" trace-json "$tmp/fifo.rec" -o "$tmp/o"
expect "record -o FILE" "$tmp/fifo.c $tmp/fifo.rec" record -p fifo -o "$tmp/fifo"
expect "record -b KB: nothing to offer" "" record -p fifo -b ""
expect "list takes nothing" "" list ""

tap_subtest commands
expect_has "run: the command" "true" run -p fifo tru
expect_has "run --: the command" "true" run -p fifo -- tru
expect_has "record -- CMD" "true" record -p fifo -- tru
expect "run CMD ARG: files (CMD's own words)" "$tmp/other" run -p fifo cat "$tmp/ot"
expect "run CMD -p ARG: CMD's option, not saakm's" "$tmp/other" run -p fifo cat -p "$tmp/ot"

done_testing
