# Shared helpers for the SaaKM build scripts. Source it; do not execute it.
# shellcheck shell=bash

SAAKM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$SAAKM_ROOT/build}
# KERNEL_VARIANT=debug selects the debug kernel (kernel/configs/debug/ on top
# of the normal fragments), built in its own tree.
case ${KERNEL_VARIANT:-} in
debug) KDIR=${KDIR:-$BUILD_DIR/linux-debug} ;;
"") KDIR=${KDIR:-$BUILD_DIR/linux} ;;
*) echo "error: unknown KERNEL_VARIANT '$KERNEL_VARIANT' (use debug or nothing)" >&2; exit 2 ;;
esac
LOG_DIR=${LOG_DIR:-$BUILD_DIR/logs}
RESULTS_DIR=${RESULTS_DIR:-$BUILD_DIR/results}
VENV=${VENV:-$BUILD_DIR/venv}
KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
JOBS=${JOBS:-$(nproc)}

# ccache: the kernel is compiled with -g, so tell ccache not to hash the
# working directory and to strip the checkout's path; a fresh clone elsewhere
# then hits the same cache entries.
if [ -z "${SAAKM_NO_CCACHE:-}" ] && command -v ccache >/dev/null 2>&1; then
	KCC="ccache gcc"
	export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$SAAKM_ROOT}
	export CCACHE_NOHASHDIR=1
	export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-include_file_mtime,include_file_ctime,time_macros}
else
	KCC="gcc"
fi

# Run kbuild in the kernel tree with the project's compiler settings. Every
# caller (config, image, external modules) must use the same CC, or kbuild
# regenerates the configuration. LOCALVERSION= (set, empty) keeps
# scripts/setlocalversion from appending "+" because the tree is a git
# repository with commits after its tag: the release stays the tarball's.
kmake() {
	make -C "$KDIR" CC="$KCC" LOCALVERSION= "$@"
}

# series_commit TREE SRC PATCH...: print the commit of tag "pristine" in the
# git tree TREE plus, first, one commit that adds the class's own files (every
# file under SRC, at the same path in the kernel tree), then the git
# format-patch mails PATCH... in that order, one commit each with the mail's
# author, date and message. The new files come first: nothing compiles them
# until the patches hook them in. The work tree and index of TREE are not
# touched (a temporary index is used), and commits take fixed or recorded
# identities and dates, so the same files and series always give the same
# commits.
series_commit() {
	local tree=$1 src=$2 idx work parent p name t author email date subject
	shift 2
	idx=$tree/.git/saakm-index.$$
	work=$(mktemp -d)
	parent=$(git -C "$tree" rev-parse pristine^{commit})
	GIT_INDEX_FILE=$idx git -C "$tree" read-tree "$parent"
	if [ -n "$(find "$src" -type f -print -quit 2>/dev/null)" ]; then
		(cd "$src" && find . -type f | LC_ALL=C sort | sed 's|^\./||') >"$work/files"
		while IFS= read -r p; do
			if git -C "$tree" cat-file -e "$parent:$p" 2>/dev/null; then
				rm -rf "$work" "$idx"
				die "kernel/src/$p is a file of Linux 6.12: change it with a patch in kernel/patches"
			fi
		done <"$work/files"
		while IFS= read -r p; do
			printf '100644 %s\t%s\n' "$(git -C "$tree" hash-object -w "$src/$p")" "$p"
		done <"$work/files" >"$work/index-info"
		GIT_INDEX_FILE=$idx git -C "$tree" update-index --index-info <"$work/index-info" &&
			t=$(GIT_INDEX_FILE=$idx git -C "$tree" write-tree) ||
			die "could not add kernel/src to the tree"
		parent=$(GIT_AUTHOR_NAME="SaaKM" GIT_AUTHOR_EMAIL="saakm@invalid" GIT_AUTHOR_DATE="@0 +0000" \
			GIT_COMMITTER_NAME="SaaKM" GIT_COMMITTER_EMAIL="saakm@invalid" GIT_COMMITTER_DATE="@0 +0000" \
			git -C "$tree" commit-tree "$t" -p "$parent" -m "sched: add the SaaKM class's files (kernel/src)")
	fi
	for p in "$@"; do
		name=${p#"$SAAKM_ROOT"/}
		git mailinfo -u "$work/msg" "$work/diff" <"$p" >"$work/info" || die "$name is not a git format-patch mail"
		author=$(sed -n 's/^Author: //p' "$work/info")
		email=$(sed -n 's/^Email: //p' "$work/info")
		date=$(sed -n 's/^Date: //p' "$work/info")
		subject=$(sed -n 's/^Subject: //p' "$work/info")
		[ -n "$subject" ] && [ -n "$author" ] && [ -n "$date" ] ||
			die "$name lacks From:, Date: or Subject: (write it with 'make patch')"
		if ! GIT_INDEX_FILE=$idx git -C "$tree" apply --cached "$work/diff" 2>"$work/err"; then
			sed 's/^/  /' "$work/err" >&2
			rm -rf "$work" "$idx"
			die "$name does not apply to pristine 6.12 plus the patches before it"
		fi
		t=$(GIT_INDEX_FILE=$idx git -C "$tree" write-tree)
		{
			printf '%s\n' "$subject"
			if [ -s "$work/msg" ]; then printf '\n'; cat "$work/msg"; fi
		} >"$work/commit-msg"
		parent=$(GIT_AUTHOR_NAME=$author GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date \
			GIT_COMMITTER_NAME=$author GIT_COMMITTER_EMAIL=$email GIT_COMMITTER_DATE=$date \
			git -C "$tree" commit-tree "$t" -p "$parent" -F "$work/commit-msg")
	done
	rm -rf "$work" "$idx"
	echo "$parent"
}

# combined_patch TREE COMMIT: print, on stdout, the change from tag "pristine"
# to COMMIT in the git tree TREE as one patch with a header saying how to
# apply it: what 'make patch' writes to build/saakm-6.12.patch.
combined_patch() {
	local tree=$1 commit=$2
	echo "SaaKM for Linux 6.12 ($(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown) source)"
	echo "Generated by 'make patch' from $(git -C "$SAAKM_ROOT" describe --always --dirty 2>/dev/null || echo 'an unversioned tree'): kernel/src and kernel/patches in one."
	echo "Apply: cd linux-6.12 && patch -p1 < saakm-6.12.patch"
	echo "Enable: CONFIG_SCHED_CLASS_SAAKM=y"
	echo
	git -C "$tree" log --reverse --format='  %s' "pristine..$commit"
	echo
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -C "$tree" diff --stat=72 --full-index --no-renames pristine "$commit"
	echo
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -C "$tree" diff --full-index --no-renames --diff-algorithm=myers pristine "$commit"
}

# kernel_tarball_id: an identity of Debian's kernel tarball (package version,
# size and modification time), to tell when trees taken from it are stale.
kernel_tarball_id() {
	{
		dpkg-query -W -f='${Version}\n' linux-source-6.12 2>/dev/null || true
		stat -c '%n %s %Y' "$KERNEL_TARBALL"
	} | sha256sum | cut -d' ' -f1
}

log() { printf '%s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# snapshot_kernel TREE DIR: copy what a guest boots from a built kernel tree
# (bzImage, .config, System.map) to DIR, so that the tree may be rebuilt
# while the guest runs; vm.sh -k DIR boots it.
snapshot_kernel() {
	mkdir -p "$2/arch/x86/boot" || return 1
	cp "$1/arch/x86/boot/bzImage" "$2/arch/x86/boot/bzImage" 2>/dev/null &&
		cp "$1/.config" "$1/System.map" "$2/" 2>/dev/null ||
		die "no built kernel in $1: run 'make kernel'"
}

# Human readable duration from seconds.
fmt_secs() {
	local s=$1
	if [ "$s" -ge 60 ]; then printf '%dm%02ds' $((s / 60)) $((s % 60)); else printf '%ds' "$s"; fi
}
