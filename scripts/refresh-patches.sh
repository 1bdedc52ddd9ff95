#!/bin/bash
# Regenerate kernel/patches/*.patch from a 6.12 tree kept under git, for
# developers who edit the scheduler core in place:
#
#   scripts/refresh-patches.sh /path/to/linux-6.12   (its HEAD = pristine)
#
# Each existing patch keeps its header (everything before the first
# "diff --git") and is rewritten with the current diff of the files it
# already touches, so the series stays split the same way. New files of the
# SaaKM class live under kernel/ (overlaid), never in the patches.
set -euo pipefail
tree=${1:?usage: refresh-patches.sh KERNEL_GIT_TREE}
dir=$(cd "$(dirname "$0")/../kernel/patches" && pwd)

while read -r name; do
	[ -n "$name" ] || continue
	p=$dir/$name
	files=$(grep '^diff --git a/' "$p" | sed 's|^diff --git a/\([^ ]*\) .*|\1|')
	header=$(sed '/^diff --git /,$d' "$p")
	{ printf '%s\n' "$header"; git -C "$tree" diff -- $files; } >"$p.new"
	mv "$p.new" "$p"
	echo "refreshed $name ($(echo "$files" | wc -l) files)"
done <"$dir/series"
