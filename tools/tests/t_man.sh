#!/bin/bash
# Host test of saakm(1)'s man page: the saakm.1 that make builds is what
# 'saakm help --man' prints, and it renders with no troff warning (groff
# -ww, man --warnings) and a NAME line that whatis can read. Skipped where
# neither groff nor man is installed. Usage: t_man.sh SAAKM_BINARY SAAKM_1.
# Prints TAP (tests/guest/tap.sh).
set -u
saakm=$1
page=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/guest/tap.sh"

# no_warnings DESC COMMAND...: ok if COMMAND succeeds and prints nothing on
# stderr (where troff writes its warnings)
no_warnings() {
	local desc=$1 err rc
	shift
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	err=$(grep -v "can't set the locale" <<<"$err")
	if [ "$rc" = 0 ] && [ -z "$err" ]; then
		ok "$desc"
	else
		sed 's/^/#   /' <<<"$err"
		not_ok "$desc" "exit status $rc, $(grep -c . <<<"$err") line(s) on stderr"
	fi
}

if [ ! -s "$page" ]; then
	not_ok "saakm.1 is built" "$page is missing or empty"
elif cmp -s "$page" <("$saakm" help --man); then
	ok "saakm.1 is what 'saakm help --man' prints"
else
	not_ok "saakm.1 is what 'saakm help --man' prints" "$page is stale"
fi
if [ -s "$page" ] && head -1 "$page" | grep -q '^\.TH SAAKM 1 '; then
	ok "saakm.1 starts with its .TH line"
else
	not_ok "saakm.1 starts with its .TH line"
fi

if command -v groff >/dev/null; then
	no_warnings "groff -man -ww renders it without a warning" \
		groff -man -Tutf8 -ww -z "$page"
else
	skip "groff -man -ww renders it without a warning" "no groff"
fi
if command -v man >/dev/null; then
	no_warnings "man --warnings renders it without a warning" \
		env MANWIDTH=80 MAN_KEEP_FORMATTING= man --warnings -l "$page"
else
	skip "man --warnings renders it without a warning" "no man"
fi
if command -v lexgrog >/dev/null; then
	check "whatis can parse its NAME section (lexgrog)" lexgrog "$page"
else
	skip "whatis can parse its NAME section (lexgrog)" "no lexgrog (man-db)"
fi

# The check itself: a page with an undefined macro must be caught
if command -v groff >/dev/null; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	{ cat "$page"; echo ".XX undefined"; } >"$tmp/bad.1"
	if err=$(groff -man -Tutf8 -ww -z "$tmp/bad.1" 2>&1) && [ -z "$err" ]; then
		not_ok "groff -ww reports an undefined macro (the check works)"
	else
		ok "groff -ww reports an undefined macro (the check works)"
	fi

	# Not a failure, a note: lines wider than 80 columns (.nf text, which
	# troff neither fills nor warns about)
	wide=$(groff -man -Tascii -rLL=78n -P-cbou "$page" 2>/dev/null | awk 'length > 80' | head -5)
	[ -z "$wide" ] || diag "note: lines wider than 80 columns:"$'\n'"$(sed 's/^/#   /' <<<"$wide")"
fi

done_testing
