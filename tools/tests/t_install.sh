#!/bin/bash
# Host test of 'make install' and 'make uninstall': installs into a staging
# directory (DESTDIR, PREFIX=/usr), checks every file, builds and runs a
# small program against the installed libsaakm with the flags of its
# pkg-config file, checks saakm-loader, its systemd unit and its config
# (which a second install keeps), then uninstalls and checks that only empty
# directories are left. Also installs the policy modules for a given KVER.
# Never touches the system. Usage: t_install.sh [BUILD_DIR] (default build/tools).
# Prints TAP (tests/guest/tap.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
O=${1:-$root/build/tools}
. "$root/tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

# mk ARGS...: make at the top of the repository, apart from any make that
# runs this test, output in $tmp/make.out
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$root" O="$O" "$@" \
		>"$tmp/make.out" 2>&1
}

# installed DESC PATH...: ok if every PATH (under $dest) is a file
installed() {
	local desc=$1 p missing=
	shift
	for p in "$@"; do [ -f "$dest/$p" ] || missing="$missing $p"; done
	if [ -z "$missing" ]; then ok "$desc"; else not_ok "$desc" "missing:$missing"; fi
}

# only_dirs_left DESC DIR: ok if nothing but directories is left in DIR
only_dirs_left() {
	local left
	left=$(cd "$2" && find . ! -type d | sort)
	if [ -z "$left" ]; then
		ok "$1"
	else
		sed 's/^/#   /' <<<"$left"
		not_ok "$1" "$(wc -l <<<"$left") file(s) left"
	fi
}

tap_subtest "make install"
if mk install DESTDIR="$dest" PREFIX=/usr; then
	ok "make install DESTDIR=... PREFIX=/usr"
else
	sed 's/^/#   /' "$tmp/make.out"
	not_ok "make install DESTDIR=... PREFIX=/usr" "failed"
	done_testing
fi
installed "the CLI" usr/bin/saakm
if [ -x "$dest/usr/bin/saakm" ] && [ "$("$dest/usr/bin/saakm" --version)" = "$("$O/saakm" --version)" ]; then
	ok "the installed saakm is the one built"
else
	not_ok "the installed saakm is the one built"
fi
installed "libsaakm and its pkg-config file" usr/lib/libsaakm.a usr/lib/pkgconfig/libsaakm.pc
if grep -qx 'prefix=/usr' "$dest/usr/lib/pkgconfig/libsaakm.pc" &&
	grep -qx "Version: $(cat "$root/VERSION")" "$dest/usr/lib/pkgconfig/libsaakm.pc"; then
	ok "the pkg-config file has PREFIX and VERSION"
else
	sed 's/^/#   /' "$dest/usr/lib/pkgconfig/libsaakm.pc"
	not_ok "the pkg-config file has PREFIX and VERSION"
fi
installed "the headers, <linux/saakm*.h> beside <saakm.h>" usr/include/saakm/saakm.h \
	usr/include/saakm/saakm_rec.h usr/include/saakm/linux/saakm.h \
	usr/include/saakm/linux/saakm_replay.h
installed "the man page and the bash completion" usr/share/man/man1/saakm.1 \
	usr/share/bash-completion/completions/saakm
installed "the templates of saakm new" usr/share/saakm/saakm_fifo.c usr/share/saakm/Kbuild \
	usr/share/saakm/t_NAME.c usr/share/saakm/t_saakm_NAME.sh
mkdir -p "$tmp/newpol"
if SAAKM_TEMPLATE_DIR=$dest/usr/share/saakm "$dest/usr/bin/saakm" new instpol --dir "$tmp/newpol" \
	>"$tmp/new.out" 2>&1 && [ -f "$tmp/newpol/instpol/saakm_instpol.c" ]; then
	ok "saakm new works from the installed templates"
else
	sed 's/^/#   /' "$tmp/new.out"
	not_ok "saakm new works from the installed templates"
fi
installed "saakm-loader, its systemd unit and its config" usr/bin/saakm-loader \
	usr/lib/systemd/system/saakm-loader.service etc/saakm/loader.conf
v=$("$O/saakm" --version)
if [ -x "$dest/usr/bin/saakm-loader" ] &&
	[ "$(env -u SAAKM "$dest/usr/bin/saakm-loader" --version 2>&1)" = "saakm-loader ${v#saakm }" ]; then
	ok "saakm-loader --version: that of the saakm installed beside it"
else
	not_ok "saakm-loader --version: that of the saakm installed beside it"
fi
unit=$dest/usr/lib/systemd/system/saakm-loader.service
if grep -qx 'ExecStart=/usr/bin/saakm-loader -c /etc/saakm/loader.conf' "$unit" &&
	grep -qx 'RestartPreventExitStatus=2 3' "$unit"; then
	ok "the unit runs PREFIX/bin/saakm-loader and keeps statuses 2 and 3 from restarting"
else
	grep -E '^(ExecStart|Restart)' "$unit" 2>&1 | sed 's/^/#   /'
	not_ok "the unit runs PREFIX/bin/saakm-loader and keeps statuses 2 and 3 from restarting"
fi
if out=$("$dest/usr/bin/saakm-loader" --check -c "$dest/etc/saakm/loader.conf" 2>&1) &&
	grep -q ": OK: policy fifo," <<<"$out"; then
	ok "the installed loader.conf passes --check (policy fifo)"
else
	sed 's/^/#   /' <<<"$out"
	not_ok "the installed loader.conf passes --check (policy fifo)"
fi

# The policy modules: into lib/modules/RELEASE/extra/saakm, RELEASE that of
# build/linux; a policy that is not built is named and skipped
kver=
if [ -d "$root/build/linux" ]; then
	kver=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$root/build/linux" kernelrelease LOCALVERSION= 2>/dev/null)
fi
if [ -z "$kver" ]; then
	if grep -q "policy modules skipped" "$tmp/make.out" && [ ! -e "$dest/lib/modules" ]; then
		ok "policy modules: skipped without a kernel tree"
	else
		not_ok "policy modules: skipped without a kernel tree"
	fi
else
	bad=
	for d in "$root"/policies/*/Kbuild; do
		p=$(basename "$(dirname "$d")")
		ko=$root/policies/$p/saakm_$p.ko
		if [ -f "$ko" ]; then
			cmp -s "$ko" "$dest/lib/modules/$kver/extra/saakm/saakm_$p.ko" || bad="$bad $p(not installed)"
		else
			grep -q "policy $p skipped" "$tmp/make.out" || bad="$bad $p(no message)"
		fi
	done
	if [ -z "$bad" ]; then
		ok "policy modules: each built one in lib/modules/$kver/extra/saakm"
	else
		not_ok "policy modules: each built one in lib/modules/$kver/extra/saakm" "$bad"
	fi
fi

tap_subtest "pkg-config"
if ! command -v pkg-config >/dev/null; then
	skip "a program built with pkg-config --cflags --libs libsaakm" "no pkg-config (Debian: pkg-config)"
else
	cat >"$tmp/prog.c" <<'EOF'
#include <saakm.h>
#include <saakm_rec.h>

int main(void)
{
	char name[SAAKM_NAME_LEN];

	if (saakm_policy_name(7, name, sizeof(name)) < 0)
		return 1;
	printf("fifo=%d 7=%s kind=%d\n", saakm_policy_id("fifo"), name,
	       saakm_rec_kind_index("no such kind"));
	return 0;
}
EOF
	# the installed copy only: sysroot and search path in $dest
	if flags=$(PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_PATH=$dest/usr/lib/pkgconfig \
		PKG_CONFIG_LIBDIR=$dest/usr/lib/pkgconfig pkg-config --cflags --libs libsaakm 2>&1); then
		ok "pkg-config --cflags --libs libsaakm" "$flags"
	else
		not_ok "pkg-config --cflags --libs libsaakm" "$flags"
	fi
	# shellcheck disable=SC2086 # the flags are words
	if out=$(${CC:-cc} -Wall -Werror -o "$tmp/prog" "$tmp/prog.c" $flags 2>&1); then
		ok "a program includes <saakm.h> and links -lsaakm with those flags alone"
	else
		sed 's/^/#   /' <<<"$out"
		not_ok "a program includes <saakm.h> and links -lsaakm with those flags alone"
	fi
	out=$(SAAKM_PROC=$here/fixtures/basic "$tmp/prog" 2>&1)
	if [ "$out" = "fifo=1 7=broken kind=-1" ]; then
		ok "it runs, reading a fixture /proc/saakm"
	else
		not_ok "it runs, reading a fixture /proc/saakm" "printed '$out'"
	fi
fi

tap_subtest "make uninstall"
if mk uninstall DESTDIR="$dest" PREFIX=/usr; then
	ok "make uninstall DESTDIR=... PREFIX=/usr"
else
	sed 's/^/#   /' "$tmp/make.out"
	not_ok "make uninstall DESTDIR=... PREFIX=/usr" "failed"
fi
only_dirs_left "only empty directories are left" "$dest"

tap_subtest "KVER"
kos=$(find "$root"/policies/*/ -maxdepth 1 -name 'saakm_*.ko' -printf '%f\n' | sort | paste -sd ' ')
# a loader.conf of one's own: install and uninstall leave it alone
mkdir -p "$tmp/k/etc/saakm"
echo "policy = mine" >"$tmp/k/etc/saakm/loader.conf"
if mk install DESTDIR="$tmp/k" KVER=0.0-test; then
	got=$(find "$tmp/k/lib/modules/0.0-test/extra/saakm" -type f -printf '%f\n' 2>/dev/null | sort | paste -sd ' ')
	if [ "$got" = "$kos" ]; then
		ok "KVER=0.0-test: the built policies in lib/modules/0.0-test/extra/saakm" "$got"
	else
		not_ok "KVER=0.0-test: the built policies in lib/modules/0.0-test/extra/saakm" "got '$got'"
	fi
	if [ -x "$tmp/k/usr/local/bin/saakm" ]; then
		ok "PREFIX defaults to /usr/local"
	else
		not_ok "PREFIX defaults to /usr/local"
	fi
	if grep -qx 'ExecStart=/usr/local/bin/saakm-loader -c /etc/saakm/loader.conf' \
		"$tmp/k/usr/local/lib/systemd/system/saakm-loader.service" 2>/dev/null; then
		ok "the unit in PREFIX/lib/systemd/system runs /usr/local/bin/saakm-loader"
	else
		not_ok "the unit in PREFIX/lib/systemd/system runs /usr/local/bin/saakm-loader"
	fi
	if [ "$(cat "$tmp/k/etc/saakm/loader.conf")" = "policy = mine" ] && grep -q "loader.conf kept" "$tmp/make.out"; then
		ok "an existing loader.conf is kept by make install"
	else
		not_ok "an existing loader.conf is kept by make install"
	fi
	mk uninstall DESTDIR="$tmp/k" KVER=0.0-test
	if [ "$(cat "$tmp/k/etc/saakm/loader.conf" 2>/dev/null)" = "policy = mine" ]; then
		ok "a changed loader.conf is kept by make uninstall"
	else
		not_ok "a changed loader.conf is kept by make uninstall"
	fi
	rm -f "$tmp/k/etc/saakm/loader.conf"
	only_dirs_left "make uninstall KVER=0.0-test leaves only empty directories" "$tmp/k"
else
	sed 's/^/#   /' "$tmp/make.out"
	not_ok "make install KVER=0.0-test" "failed"
fi

done_testing
