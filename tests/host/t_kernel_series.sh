#!/bin/bash
# The kernel change a user gets is the one the suite builds and tests.
# kernel/src (the class's own files) plus kernel/patches (edits to files of
# Linux 6.12) give one series (scripts/lib.sh, series_commit). Its combined
# patch, what 'make patch' hands to people who build their own kernel, must
# apply with 'patch -p1' to pristine 6.12 files and give exactly the
# series' files; and the tree the suite built, build/linux, must be exactly
# that series, with no local commit or edit on top.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
. "$root/scripts/lib.sh"
kdir=$BUILD_DIR/linux
[ "${KERNEL_VARIANT:-}" = debug ] && kdir=$BUILD_DIR/linux-debug
if ! git -C "$kdir" rev-parse -q --verify pristine^{commit} >/dev/null 2>&1; then
	skip "the kernel series" "no git tree with tag pristine in ${kdir#"$root"/}: run 'make kernel'"
	done_testing
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

shopt -s nullglob
patches=("$root"/kernel/patches/*.patch)
shopt -u nullglob
target=$( (series_commit "$kdir" "$root/kernel/src" "${patches[@]}") 2>"$work/err")
if [ -z "$target" ]; then
	not_ok "kernel/src and kernel/patches apply to pristine 6.12" "$(tr '\n' ' ' <"$work/err")"
	done_testing
fi
ok "kernel/src and kernel/patches apply to pristine 6.12"

# The combined patch, applied with patch(1) to the pristine files it names.
combined_patch "$kdir" "$target" >"$work/saakm-6.12.patch"
git -C "$kdir" diff --name-only --no-renames pristine "$target" >"$work/files"
git -C "$kdir" diff --name-only --no-renames --diff-filter=DMT pristine "$target" >"$work/edited"
mkdir "$work/tree"
[ -s "$work/edited" ] && xargs -a "$work/edited" -d '\n' git -C "$kdir" archive pristine | tar -x -C "$work/tree"
if (cd "$work/tree" && patch -p1 -s --no-backup-if-mismatch <"$work/saakm-6.12.patch") >"$work/patch.out" 2>&1; then
	ok "the combined patch applies with 'patch -p1' to pristine 6.12"
else
	not_ok "the combined patch applies with 'patch -p1' to pristine 6.12" "$(head -5 "$work/patch.out" | tr '\n' ' ')"
fi
differ=0
while IFS= read -r f; do
	if git -C "$kdir" cat-file -e "$target:$f" 2>/dev/null; then
		git -C "$kdir" show "$target:$f" | cmp -s - "$work/tree/$f" || { diag "differs: $f"; differ=$((differ + 1)); }
	elif [ -e "$work/tree/$f" ]; then
		diag "not removed: $f"; differ=$((differ + 1))
	fi
done <"$work/files"
check "the patched files are the series' files ($(wc -l <"$work/files") files)" [ "$differ" -eq 0 ]

# The tree the suite built is the series.
head_tree=$(git -C "$kdir" rev-parse HEAD^{tree})
if [ "$head_tree" = "$(git -C "$kdir" rev-parse "$target^{tree}")" ]; then
	ok "${kdir#"$root"/} is exactly kernel/src plus kernel/patches"
else
	not_ok "${kdir#"$root"/} is exactly kernel/src plus kernel/patches" \
		"it differs in $(git -C "$kdir" diff --name-only HEAD "$target" | wc -l) file(s): run 'make kernel', or 'make patch' to export work committed there"
fi
dirty=$(git -C "$kdir" status --porcelain --untracked-files=no)
check "${kdir#"$root"/} has no uncommitted edits" [ -z "$dirty" ]
done_testing
