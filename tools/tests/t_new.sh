#!/bin/bash
# Host test of 'saakm new' (tools/saakm_new.c). In a scratch SaaKM tree
# whose policies/, tests/policy/ and tests/guest/ are its own (the rest is
# linked to this tree), 'saakm new tpol' writes the FIFO tutorial renamed
# and its two tests where the runners look; the host loop (run.sh --policy
# tpol, what make policy-test P=tpol runs) finds the policy and passes as
# generated; the module builds against build/linux when there is one (else
# a skip). Outside a tree the tests stay next to the policy, and a flat
# directory of templates, as an install would keep them, gives the same
# files. Every refusal (exit 2 for a bad argument, 1 for a failure) writes
# nothing. Everything happens in a temporary directory, removed at the end.
# Usage: t_new.sh SAAKM_BINARY. Prints TAP (tests/guest/tap.sh).
set -u
saakm=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/guest/tap.sh"
. "$root/tests/guest/select.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the templates of the source tree saakm was built from, unless a check says otherwise
unset SAAKM_TEMPLATE_DIR

# the scratch tree: tests/policy and tests/guest hold links to this
# tree's files, so that a file 'saakm new' adds there stays in the scratch
tree=$tmp/tree
mkdir -p "$tree/policies" "$tree/tests/policy" "$tree/tests/guest" "$tmp/outside"
for d in kernel tools scripts; do ln -s "$root/$d" "$tree/$d"; done
for f in "$root"/tests/policy/* "$root"/tests/guest/*; do
	ln -s "$f" "$tree/tests/${f#"$root/tests/"}"
done

# new DIR ARGS...: run saakm new in DIR; its output in $out, status in $rc
new() {
	local dir=$1
	shift
	out=$(cd "$dir" && "$saakm" new "$@" 2>&1)
	rc=$?
}

# expect DESC STATUS REGEX: the last new ended with STATUS and said REGEX
expect() {
	if [ "$rc" != "$2" ]; then
		not_ok "$1" "exit status $rc, expected $2"
	elif ! grep -qE -- "$3" <<<"$out"; then
		not_ok "$1" "output lacks /$3/"
	else
		ok "$1"
		return 0
	fi
	sed 's/^/#   /' <<<"$out"
	return 1
}

# snapshot: every file of the scratch area with its checksum, for "nothing written"
snapshot() {
	(cd "$tmp" && find . -path ./out -prune -o -type f -print0 | sort -z | xargs -0 md5sum)
}

tap_subtest "in a source tree"
pol=$tree/policies/tpol
new "$tree" tpol
expect "saakm new tpol: created, with the next commands" 0 "make policy-test P=tpol"
for f in policies/tpol/saakm_tpol.c policies/tpol/Kbuild tests/policy/t_tpol.c \
	tests/guest/t_saakm_tpol.sh; do
	check "it wrote $f" test -f "$tree/$f"
done
check "the policy registers the name tpol" grep -q '\.name[[:space:]]*= "tpol",' "$pol/saakm_tpol.c"
# after the header comment no "fifo" is left, alone or as part of a name
left=$(sed '1,/\*\//d' "$pol/saakm_tpol.c" | grep -nE '(^|[^A-Za-z0-9])fifo($|[^A-Za-z0-9])')
[ -z "$left" ] && ok "no fifo identifier left below the header" ||
	not_ok "no fifo identifier left below the header" "$(head -1 <<<"$left")"
check "SAAKM_RQ_FIFO (a kind of runqueue) is kept" grep -q SAAKM_RQ_FIFO "$pol/saakm_tpol.c"
check "the header is left for the author (TODO)" grep -q '^ \* saakm_tpol: TODO' "$pol/saakm_tpol.c"
# below the header: fifo's lines, each word part "fifo" renamed, all else
# kept (comments too), but the module's description
body() { sed -e '1,/\*\//d' -e '/^MODULE_DESCRIPTION(/d' "$1"; }
rename() { sed -E ':a; s/(^|[^A-Za-z0-9])fifo($|[^A-Za-z0-9])/\1tpol\2/; ta'; }
if cmp -s <(body "$root/policies/fifo/saakm_fifo.c" | rename) <(body "$pol/saakm_tpol.c"); then
	ok "below the header, the tutorial renamed, its comments kept"
else
	diff <(body "$root/policies/fifo/saakm_fifo.c" | rename) <(body "$pol/saakm_tpol.c") |
		head -10 | sed 's/^/#   /'
	not_ok "below the header, the tutorial renamed, its comments kept"
fi
check "Kbuild builds saakm_tpol.o" grep -qx 'obj-m += saakm_tpol.o' "$pol/Kbuild"
g=$tree/tests/guest/t_saakm_tpol.sh
check "the guest test is valid sh" sh -n "$g"
check "the guest test is opt-in (select.sh)" test "$(saakm_opt_in "$g")" = 1
check "the guest test is named saakm_tpol" test "$(saakm_test_name "$g")" = saakm_tpol
check "the guest test loads the module from the tree" \
	grep -qF 'ko="$SAAKM_ROOT/policies/tpol/saakm_tpol.ko"' "$g"
check "nothing was written in this tree" \
	test ! -e "$root/policies/tpol" -a ! -e "$root/tests/policy/t_tpol.c"

tap_subtest "the host loop, as generated"
hl=$(O=$tmp/out bash "$tree/tests/policy/run.sh" --policy tpol 2>&1)
hl_rc=$?
if [ "$hl_rc" = 0 ] && grep -q '^ok [0-9]* tpol: unit tests' <<<"$hl" &&
	grep -q '^ok [0-9]* tpol: stress' <<<"$hl"; then
	ok "run.sh --policy tpol: unit tests and stress pass" "$(tail -1 <<<"$hl")"
else
	sed 's/^/#   /' <<<"$hl" | tail -30
	not_ok "run.sh --policy tpol: unit tests and stress pass" "exit status $hl_rc"
fi

tap_subtest "the kernel module"
if [ -f "$root/build/linux/Module.symvers" ]; then
	if km=$(KDIR=$root/build/linux LOG_DIR=$tmp/logs \
		bash "$root/scripts/build-module.sh" "$pol" 2>&1) &&
		[ "$(modinfo -F name "$pol/saakm_tpol.ko" 2>/dev/null)" = saakm_tpol ]; then
		ok "saakm_tpol.ko builds against build/linux"
	else
		sed 's/^/#   /' <<<"$km" | tail -20
		not_ok "saakm_tpol.ko builds against build/linux"
	fi
else
	skip "saakm_tpol.ko builds against build/linux" "no kernel built in build/linux (make kernel)"
fi

tap_subtest "refusals"
before=$(snapshot)
new "$tree" tpol
expect "an existing policy directory: refused" 1 "policies/tpol exists already: nothing written"
: >"$tree/tests/policy/t_other.c"
new "$tree" other
expect "an existing test file: refused" 1 "tests/policy/t_other.c exists already"
rm "$tree/tests/policy/t_other.c"
# the longest name there is room for (SAAKM_NAME_LEN - 1), and one more
len=$(sed -n 's/^#define SAAKM_NAME_LEN[[:space:]]*\([0-9]*\).*/\1/p' \
	"$root/kernel/src/include/uapi/linux/saakm.h")
longest=$(printf 'x%.0s' $(seq $((len - 1))))
long=${longest}y
for bad in "" 1st a-b int linux __x fifo steal "$long"; do
	new "$tree" "$bad"
	expect "name '$bad': usage error" 2 "^saakm: '$bad' cannot name a policy: .*"
done
new "$tree"
expect "no name: usage error" 2 "new needs the name of the policy"
new "$tree" a b
expect "two names: usage error" 2 "new takes one name"
new "$tree" a --bogus
expect "an unknown option: usage error" 2 "^usage: saakm new NAME"
mkdir "$tmp/empty"
out=$(cd "$tree" && SAAKM_TEMPLATE_DIR=$tmp/empty "$saakm" new other 2>&1)
rc=$?
expect "no template: refused" 1 "template saakm_fifo.c not found in $tmp/empty"
new "$tree" other --dir "$tmp/nowhere"
expect "a --dir that does not exist: refused" 1 "nowhere: No such file or directory"
new "$tmp/outside" other
expect "outside a tree without --dir: refused" 1 \
	"policies: No such file or directory \(run saakm new at the top"
# a write that fails (past a file size limit) takes back what was written
out=$(cd "$tree" && trap '' XFSZ && ulimit -f 1 && "$saakm" new other 2>&1)
rc=$?
expect "a failed write: nothing left" 1 "saakm_other.c: File too large: nothing written"
[ "$(snapshot)" = "$before" ] && ok "the refusals wrote nothing" ||
	not_ok "the refusals wrote nothing" "$(diff <(echo "$before") <(snapshot) | head -3)"

tap_subtest "outside a tree, and from installed templates"
new "$tmp" opol --dir "$tmp/outside"
expect "--dir outside a tree: created, with how to run the tests" 0 "add opol=.*to POLICIES"
for f in saakm_opol.c Kbuild t_opol.c t_saakm_opol.sh; do
	check "it wrote $f next to the policy" test -f "$tmp/outside/opol/$f"
done
check "its guest test loads the module by its absolute path" \
	grep -qF "ko=\"$tmp/outside/opol/saakm_opol.ko\"" "$tmp/outside/opol/t_saakm_opol.sh"
mkdir -p "$tmp/share/saakm" "$tmp/flat"
cp "$root/policies/fifo/saakm_fifo.c" "$root/policies/fifo/Kbuild" \
	"$root"/tools/templates/t_NAME.c "$root"/tools/templates/t_saakm_NAME.sh "$tmp/share/saakm/"
out=$(SAAKM_TEMPLATE_DIR=$tmp/share/saakm "$saakm" new opol --dir "$tmp/flat" 2>&1)
rc=$?
expect "SAAKM_TEMPLATE_DIR with the templates side by side" 0 "the policy opol"
same=1
for f in saakm_opol.c Kbuild t_opol.c t_saakm_opol.sh; do
	cmp -s <(sed "s|$tmp/outside|DIR|g" "$tmp/outside/opol/$f") \
		<(sed "s|$tmp/flat|DIR|g" "$tmp/flat/opol/$f") || { same=; diag "$f differs"; }
done
[ -n "$same" ] && ok "the same files as from the source tree" ||
	not_ok "the same files as from the source tree"
new "$tmp" "$longest" --dir "$tmp/outside"
expect "a name of SAAKM_NAME_LEN - 1 characters is taken" 0 "the policy $longest"
# a long name still makes a policy that compiles (against libusim, as built above)
if [ -f "$tmp/out/usim-san/usim.cflags" ]; then
	check "which compiles against libusim" "$root/tools/usim/policy-cc" "$tmp/out/usim-san" \
		-c "$tmp/outside/$longest/saakm_$longest.c" -o "$tmp/long.o"
else
	skip "which compiles against libusim" "the host loop above did not build libusim"
fi
done_testing
