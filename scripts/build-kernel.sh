#!/bin/bash
# Build the SaaKM guest kernel in build/linux (KERNEL_VARIANT=debug: build/linux-debug).
#
# The kernel tree is a git repository: tag "pristine" is Debian's
# linux-source-6.12 tarball, branch "saakm" is pristine plus one commit that
# adds the class's own files (kernel/src, at their kernel paths) plus one
# commit per kernel/patches/*.patch (file name order), the edits to files of
# 6.12 (scripts/lib.sh, series_commit).
#
#   1. tree: extract the tarball into a new git repository and tag it (first
#      run, a new tarball, --force, or a tree from before the git layout)
#   2. series: build the commits of kernel/src and kernel/patches in a temporary
#      index, without touching the work tree, and check the result out: git
#      rewrites only the files whose content changes, so kbuild rebuilds only
#      what depends on them. While the series is the one last applied, the
#      tree is left alone, so local edits in build/linux are built as they are.
#      A changed series never overwrites local work: uncommitted edits or
#      commits that 'make patch' has not exported stop the build.
#   3. config (when a fragment or a Kconfig file changed): allnoconfig +
#      kernel/configs/*.config + olddefconfig, then report requested symbols
#      that did not stick
#   4. make bzImage + modules (+ modules_prepare for external modules)
#
# Options: --prepare-only (steps 1-3), --force (re-extract; discards local work).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PREPARE_ONLY=
FORCE=
for a in "$@"; do
	case $a in
	--prepare-only) PREPARE_ONLY=1 ;;
	--force) FORCE=1 ;;
	*) die "unknown option $a" ;;
	esac
done

KSRC=$SAAKM_ROOT/kernel
mkdir -p "$BUILD_DIR" "$LOG_DIR"
[ -f "$KERNEL_TARBALL" ] || die "$KERNEL_TARBALL missing: run 'make setup' (package linux-source-6.12)"
command -v git >/dev/null || die "git missing: run 'make setup'"

# The debug variant adds its fragments after the normal ones.
variant_frags=()
if [ "${KERNEL_VARIANT:-}" = debug ]; then
	for f in "$KSRC"/configs/debug/*.config; do [ -f "$f" ] && variant_frags+=("$f"); done
fi
KREL=${KDIR#"$SAAKM_ROOT"/}
shopt -s nullglob
patches=("$KSRC"/patches/*.patch)
shopt -u nullglob

kgit() { git -C "$KDIR" "$@"; }

# --- 1. tree ------------------------------------------------------------------
# tarball identity: package version when known, plus size and mtime
tarball_id=$(kernel_tarball_id)

reason=
if [ -n "$FORCE" ]; then
	reason="--force"
elif [ ! -e "$KDIR" ]; then
	reason="no tree yet"
elif [ ! -d "$KDIR/.git" ]; then
	reason="$KREL predates the git layout, converting it once"
elif [ "$(cat "$KDIR/.git/saakm-tarball" 2>/dev/null)" != "$tarball_id" ]; then
	reason="the tarball changed"
	if [ -n "$(kgit status --porcelain --untracked-files=no)" ] ||
		[ "$(kgit rev-parse HEAD)" != "$(kgit rev-parse -q --verify refs/saakm/applied || true)" ]; then
		die "the tarball changed and $KREL has local work (uncommitted edits or commits not in kernel/patches): run 'make patch' to export commits, then rerun with --force to re-extract"
	fi
fi

if [ -n "$reason" ]; then
	t0=$SECONDS
	log "kernel: extracting $(basename "$KERNEL_TARBALL") into $KREL ($reason)"
	rm -rf "$KDIR.new"
	mkdir -p "$KDIR.new"
	tar -xf "$KERNEL_TARBALL" -C "$KDIR.new" --strip-components=1
	# The base commit's identity and date are fixed, so the same tarball
	# gives the same commits everywhere.
	(
		cd "$KDIR.new"
		export GIT_AUTHOR_NAME="Debian linux-source-6.12" GIT_AUTHOR_EMAIL="linux-source@debian.invalid"
		export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
		export GIT_AUTHOR_DATE="@$(stat -c %Y "$KERNEL_TARBALL") +0000" GIT_COMMITTER_DATE="@$(stat -c %Y "$KERNEL_TARBALL") +0000"
		git init -q -b saakm .
		git config gc.auto 0          # no surprise repack of ~87k objects
		git -c core.looseCompression=1 add -A -f .
		git commit -q --no-verify -m "Linux 6.12 ($(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown version), $(basename "$KERNEL_TARBALL"))"
		git tag pristine
		echo "$tarball_id" >.git/saakm-tarball
	) >"$LOG_DIR/kernel-git-init.log" 2>&1 || die "could not commit the pristine tree, see $LOG_DIR/kernel-git-init.log"
	rm -rf "$KDIR"
	mv "$KDIR.new" "$KDIR"
	log "kernel: extracted and committed (tag pristine) in $(fmt_secs $((SECONDS - t0)))"
fi

# --- 2. series ----------------------------------------------------------------
t0=$SECONDS
target=$(series_commit "$KDIR" "$KSRC/src" "${patches[@]}")
kgit update-ref refs/saakm/series "$target"
target_tree=$(kgit rev-parse "$target^{tree}")
applied=$(kgit rev-parse -q --verify refs/saakm/applied || true)
head=$(kgit rev-parse HEAD)
head_tree=$(kgit rev-parse HEAD^{tree})
np=${#patches[@]}
if [ "$target" = "$applied" ]; then
	if [ "$head" != "$target" ] || [ -n "$(kgit status --porcelain --untracked-files=no)" ]; then
		log "kernel: series unchanged ($np patches); building $KREL with its local changes ('make patch' exports committed ones)"
	else
		log "kernel: series unchanged ($np patches)"
	fi
elif [ "$head_tree" = "$target_tree" ]; then
	# Same files, other commits (a reworded patch, or a series exported by
	# 'make patch'): take the series' commits; no file is written, and
	# uncommitted edits stay as they are.
	kgit checkout -q -B saakm "$target"
	kgit update-ref refs/saakm/applied "$target"
	log "kernel: series ($np patches) has the content of $KREL's HEAD; took its commits, no file rewritten"
elif [ "$head" != "$applied" ] && kgit merge-base --is-ancestor "$target" HEAD; then
	# local commits moved onto the new series (git rebase --onto, below)
	kgit update-ref refs/saakm/applied "$target"
	log "kernel: series changed ($np patches); $KREL already has it, with local commits on top: building those"
else
	dirty=$(kgit status --porcelain --untracked-files=no)
	if [ -n "$dirty" ]; then
		printf '%s\n' "$dirty" | sed 's/^/  /' >&2
		die "kernel/src or kernel/patches changed, and $KREL has uncommitted edits (above) that applying it would overwrite. Keep them: commit them in $KREL and run 'make patch'. Drop them: git -C $KREL checkout -- . ; then run again."
	fi
	if [ -n "$applied" ] && [ "$head" != "$applied" ]; then
		die "kernel/src or kernel/patches changed, and $KREL has commits that are not in them. Export them first ('make patch'), or move them onto the new series: git -C $KREL rebase --onto refs/saakm/series refs/saakm/applied ; or drop them: git -C $KREL reset --hard refs/saakm/applied"
	fi
	changed=$(kgit diff --name-only HEAD "$target" | wc -l)
	kgit checkout -q -B saakm "$target" || die "git checkout of the series failed in $KREL"
	kgit update-ref refs/saakm/applied "$target"
	log "kernel: applied kernel/src and $np patch(es) from kernel/patches: $changed file(s) rewritten in $(fmt_secs $((SECONDS - t0)))"
fi

# --- 3. config ----------------------------------------------------------------
frags=()
for f in "$KSRC"/configs/*.config; do [ -f "$f" ] && frags+=("$f"); done
frags+=("${variant_frags[@]}")
# The configuration depends on the fragments and on the series' Kconfig files
# only: a patch that changes C code leaves .config alone.
config_stamp=$({
	kgit ls-tree -r "$target" | awk -F'\t' '$2 ~ /(^|\/)Kconfig[^\/]*$/'
	for f in "${frags[@]}"; do
		printf '%s ' "${f#"$KSRC"/}"
		sha256sum <"$f"
	done
} | sha256sum | cut -d' ' -f1)
if [ ! -f "$KDIR/.config" ] || [ "$(cat "$KDIR/.git/saakm-config" 2>/dev/null)" != "$config_stamp" ]; then
	log "kernel: configuring (allnoconfig + kernel/configs/*.config)"
	rm -f "$KDIR/.git/saakm-config"
	{
		kmake allnoconfig
		(cd "$KDIR" && KCONFIG_CONFIG=.config scripts/kconfig/merge_config.sh -m .config "${frags[@]}")
		kmake olddefconfig
	} >"$LOG_DIR/kernel-config.log" 2>&1 || die "configuration failed, see $LOG_DIR/kernel-config.log"

	# Every assignment the fragments ask for must be in the final .config.
	# Symbols that are not in the tree yet (e.g. before the class lands) are
	# warnings, not failures.
	missing=0
	# A later fragment overrides an earlier one: check each symbol once,
	# against the last fragment that sets it.
	declare -A checked=()
	for ((i = ${#frags[@]} - 1; i >= 0; i--)); do
		f=${frags[i]}
		while IFS= read -r line; do
			case $line in
			CONFIG_*=*) sym=${line%%=*}; want=$line ;;
			"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; want="" ;;
			*) continue ;;
			esac
			[ -n "${checked[$sym]:-}" ] && continue
			checked[$sym]=1
			got=$(grep -E "^($sym=|# $sym is not set)" "$KDIR/.config" || true)
			if [ -z "$want" ]; then
				case $got in "" | "# $sym is not set") continue ;; esac
			elif [ "$got" = "$want" ]; then
				continue
			fi
			log "kernel: warning: $(basename "$f"): requested '${want:-# $sym is not set}', got '${got:-<absent>}'"
			missing=$((missing + 1))
		done <"$f"
	done
	[ "$missing" -eq 0 ] && log "kernel: all requested config symbols are set"
	echo "$config_stamp" >"$KDIR/.git/saakm-config"
fi

[ -n "$PREPARE_ONLY" ] && exit 0

# --- 4. build -----------------------------------------------------------------
BUILD_LOG=$LOG_DIR/kernel-build${KERNEL_VARIANT:+-$KERNEL_VARIANT}.log
t0=$SECONDS
marker=$(mktemp)
log "kernel: building bzImage and modules with CC=\"$KCC\" -j$JOBS (log: ${BUILD_LOG#"$SAAKM_ROOT"/})"
(
	set -e
	kmake -j"$JOBS" bzImage modules
	kmake -j"$JOBS" modules_prepare
) >"$BUILD_LOG" 2>&1 &
pid=$!
next=30
while kill -0 "$pid" 2>/dev/null; do
	sleep 2
	el=$((SECONDS - t0))
	if [ "$el" -ge "$next" ]; then
		# find fails when kbuild deletes a file under its feet: only a count
		n=$({ find "$KDIR" -name '*.o' -newer "$marker" 2>/dev/null || true; } | wc -l)
		log "kernel: building... $(fmt_secs "$el"), $n objects compiled"
		next=$((next + 30))
	fi
done
rc=0
wait "$pid" || rc=$?
rm -f "$marker"
if [ "$rc" -ne 0 ]; then
	grep -E -B2 -A4 'error:|Error [0-9]' "$BUILD_LOG" | tail -40 >&2 || tail -40 "$BUILD_LOG" >&2
	die "kernel build failed after $(fmt_secs $((SECONDS - t0))), full log: $BUILD_LOG"
fi
log "kernel: built $(grep -o '"[^"]*"' "$KDIR/include/config/kernel.release" 2>/dev/null || cat "$KDIR/include/config/kernel.release") in $(fmt_secs $((SECONDS - t0))): $KREL/arch/x86/boot/bzImage"
