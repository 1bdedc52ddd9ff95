#!/bin/bash
# Export the kernel change from build/linux (KERNEL_VARIANT=debug or KDIR=...:
# another tree) into the repository, the other direction of build-kernel.sh:
#
#   kernel/src/...           every file the change adds, at its kernel path
#                            (the class's own sources and headers)
#   kernel/patches/*.patch   git format-patch of pristine..HEAD limited to the
#                            files Linux 6.12 already has, one mail per commit
#                            that edits them, written so that an unchanged
#                            commit gives a byte-identical file (no git diff)
#   build/saakm-6.12.patch   the whole change as one patch, for people who
#                            build their own kernel:
#                            cd linux-6.12 && patch -p1 < saakm-6.12.patch
#
# Most work edits kernel/src and kernel/patches directly ('make kernel'
# builds them); this script is for work committed in build/linux itself.
# Commits named "fixup! <subject>" or "squash! <subject>" (git commit --fixup)
# are first folded into the commit they name (git rebase --autosquash); the
# files keep their modification times, so kbuild rebuilds nothing for it.
# Uncommitted edits are not exported (a warning lists them).
# Both outputs are checked: kernel/src plus the series applied to pristine,
# in file name order, gives exactly the tree of HEAD; the single patch
# applies to pristine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KSRC=$SAAKM_ROOT/kernel
KDIR=$(cd "$KDIR" 2>/dev/null && pwd) || die "$KDIR missing: run 'make kernel' first"
KREL=${KDIR#"$SAAKM_ROOT"/}
out=$BUILD_DIR/saakm-6.12.patch
mkdir -p "$BUILD_DIR"
kgit() { git -C "$KDIR" "$@"; }

[ -d "$KDIR/.git" ] && kgit rev-parse -q --verify pristine^{commit} >/dev/null ||
	die "$KREL is not a git tree with tag 'pristine': run 'make kernel' first"

dirty=$(kgit status --porcelain --untracked-files=no)

# --- fold fixup!/squash! commits ----------------------------------------------
# grep without -q: it would exit at the first match, and with pipefail the
# SIGPIPE this gives git log would make the test fail now and then
if kgit log --format=%s pristine..HEAD | grep -E '^(fixup|squash|amend)! ' >/dev/null; then
	[ -z "$dirty" ] || die "$KREL has uncommitted edits; commit or stash them before folding fixup! commits"
	log "patch: folding fixup!/squash! commits (git rebase --autosquash)"
	before_tree=$(kgit rev-parse HEAD^{tree})
	mtimes=$(mktemp)
	# every file the series touches, with its modification time
	(cd "$KDIR" && git diff -z --name-only pristine HEAD | xargs -0 -r stat -c '%.9Y %n' 2>/dev/null) >"$mtimes" || true
	if ! GIT_SEQUENCE_EDITOR=: GIT_EDITOR=: kgit rebase -q -i --autosquash pristine; then
		rm -f "$mtimes"
		die "the autosquash rebase stopped (conflict?): finish it in $KREL (git rebase --continue or --abort), then run 'make patch' again"
	fi
	[ "$(kgit rev-parse HEAD^{tree})" = "$before_tree" ] || die "autosquash changed the tree of HEAD; check $KREL"
	# same content as before: give each file its old time back
	while read -r ts f; do
		[ -e "$KDIR/$f" ] && touch -m -d "@$ts" "$KDIR/$f"
	done <"$mtimes"
	rm -f "$mtimes"
fi
if [ -n "$dirty" ]; then
	log "patch: warning: uncommitted edits in $KREL are not exported:"
	printf '%s\n' "$dirty" | sed 's/^/  /'
fi

# --- kernel/src ---------------------------------------------------------------
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kgit diff --name-only --no-renames --diff-filter=A pristine HEAD >"$work/added"
kgit diff --name-only --no-renames --diff-filter=DMT pristine HEAD >"$work/edited"
mkdir -p "$KSRC/src"
updated=0
while IFS= read -r f; do
	dst=$KSRC/src/$f
	kgit show "HEAD:$f" >"$work/file"
	if ! cmp -s "$work/file" "$dst"; then
		mkdir -p "$(dirname "$dst")"
		cp "$work/file" "$dst"
		updated=$((updated + 1))
	fi
done <"$work/added"
# files the change no longer adds
while IFS= read -r f; do
	grep -qxF "$f" "$work/added" || { rm -f "$KSRC/src/$f"; updated=$((updated + 1)); }
done < <(cd "$KSRC/src" && find . -type f | sed 's|^\./||')
find "$KSRC/src" -mindepth 1 -type d -empty -delete
log "patch: kernel/src: $(wc -l <"$work/added") new file(s), $updated written or removed"

# --- kernel/patches -----------------------------------------------------------
# Neither the user's git configuration (format.*, diff.*) nor the git
# version's signature may change the output: fixed options only. Limited to
# the edited files, a commit that only touches kernel/src gives no mail.
mkdir -p "$work/patches"
if [ -s "$work/edited" ]; then
	mapfile -t edited <"$work/edited"
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null kgit -c core.abbrev=12 format-patch -q \
		--zero-commit --no-signature --no-numbered --full-index --no-renames \
		--diff-algorithm=myers --no-thread --no-cover-letter --stat=72 \
		-o "$work/patches" pristine..HEAD -- "${edited[@]}"
fi
mkdir -p "$KSRC/patches"
shopt -s nullglob
new=("$work"/patches/*.patch)
n=${#new[@]}
pupdated=0
for f in "$KSRC"/patches/*.patch "$KSRC"/patches/series; do
	[ -e "$f" ] && [ ! -e "$work/patches/$(basename "$f")" ] && { rm -f "$f"; pupdated=$((pupdated + 1)); }
done
for f in "${new[@]}"; do
	dst=$KSRC/patches/$(basename "$f")
	cmp -s "$f" "$dst" || { cp "$f" "$dst"; pupdated=$((pupdated + 1)); }
done
series=("$KSRC"/patches/*.patch)
shopt -u nullglob

got=$(series_commit "$KDIR" "$KSRC/src" "${series[@]}")
[ "$(kgit rev-parse "$got^{tree}")" = "$(kgit rev-parse HEAD^{tree})" ] ||
	die "kernel/src plus kernel/patches applied to pristine does not give $KREL's HEAD"
# HEAD becomes the series' own commits (same tree, so no file and no
# uncommitted edit changes): the next 'make kernel' finds them applied.
kgit reset -q --soft "$got"
kgit update-ref refs/saakm/series "$got"
kgit update-ref refs/saakm/applied "$got"
log "patch: kernel/patches: $n patch(es) from pristine..HEAD, $pupdated file(s) written or removed; verified: kernel/src and the series applied to pristine give HEAD"

# --- build/saakm-6.12.patch ---------------------------------------------------
combined_patch "$KDIR" HEAD >"$out"
GIT_INDEX_FILE=$work/index kgit read-tree pristine
GIT_INDEX_FILE=$work/index kgit apply --cached --check "$out" || die "$out does not apply to pristine 6.12"
log "patch: wrote ${out#"$SAAKM_ROOT"/} ($(grep -c '^+++ ' "$out") file(s), $(wc -l <"$out") lines), checked against pristine"
