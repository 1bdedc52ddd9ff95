#!/bin/bash
# Build the SaaKM guest kernel in build/linux (KERNEL_VARIANT=debug: build/linux-debug).
#
#   1. extract Debian's linux-source-6.12 tarball (only when the tarball, the
#      patch series or the config fragments changed: their hash is the stamp)
#   2. apply kernel/patches/series (quilt style, -p1)
#   3. write .config: allnoconfig + kernel/configs/*.config + olddefconfig,
#      then report requested symbols that did not stick
#   4. overlay every other file under kernel/ onto the tree, copying only files
#      whose content differs so kbuild rebuilds only what changed
#   5. make bzImage + modules (+ modules_prepare for external modules)
#
# Options: --prepare-only (steps 1-4), --force (re-extract).
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
STAMP=$KDIR/.saakm-stamp
OVERLAY_LIST=$KDIR/.saakm-overlay
mkdir -p "$BUILD_DIR" "$LOG_DIR"
[ -f "$KERNEL_TARBALL" ] || die "$KERNEL_TARBALL missing: run 'make setup' (package linux-source-6.12)"

# The debug variant adds its fragments after the normal ones.
variant_frags=()
if [ "${KERNEL_VARIANT:-}" = debug ]; then
	for f in "$KSRC"/configs/debug/*.config; do [ -f "$f" ] && variant_frags+=("$f"); done
fi
KREL=${KDIR#"$SAAKM_ROOT"/}

# --- 1. stamp -----------------------------------------------------------------
stamp_inputs() {
	# tarball identity: package version when known, plus size and mtime
	dpkg-query -W -f='${Version}\n' linux-source-6.12 2>/dev/null || true
	stat -c '%n %s %Y' "$KERNEL_TARBALL"
	local f
	for f in "$KSRC"/patches/* "$KSRC"/configs/* "${variant_frags[@]}"; do
		[ -f "$f" ] || continue
		printf '%s ' "${f#"$KSRC"/}"
		sha256sum <"$f"
	done
}
want_stamp=$(stamp_inputs | sha256sum | cut -d' ' -f1)
have_stamp=$(cat "$STAMP" 2>/dev/null || true)

# A file that used to be overlaid but is gone from kernel/ cannot be
# "un-copied" safely: start again from a clean tree.
if [ -z "$FORCE" ] && [ -f "$OVERLAY_LIST" ]; then
	while IFS= read -r rel; do
		if [ ! -f "$KSRC/$rel" ]; then
			log "kernel: overlay file $rel was removed, re-extracting"
			FORCE=1
			break
		fi
	done <"$OVERLAY_LIST"
fi

if [ -n "$FORCE" ] || [ "$want_stamp" != "$have_stamp" ] || [ ! -f "$KDIR/Makefile" ]; then
	t0=$SECONDS
	log "kernel: extracting $(basename "$KERNEL_TARBALL") into $KREL (tarball, patches or configs changed)"
	rm -rf "$KDIR.new" "$KDIR"
	mkdir -p "$KDIR.new"
	tar -xf "$KERNEL_TARBALL" -C "$KDIR.new" --strip-components=1
	mv "$KDIR.new" "$KDIR"
	log "kernel: extracted in $(fmt_secs $((SECONDS - t0)))"

	# --- 2. patches -----------------------------------------------------------
	series=$KSRC/patches/series
	if [ -s "$series" ]; then
		n=0
		while IFS= read -r line || [ -n "$line" ]; do
			line=${line%%#*}
			p=$(echo "$line" | awk '{print $1}')
			[ -n "$p" ] || continue
			[ -f "$KSRC/patches/$p" ] || die "patch $p listed in kernel/patches/series is missing"
			if ! patch -d "$KDIR" -p1 --forward --batch --no-backup-if-mismatch -s <"$KSRC/patches/$p"; then
				rm -f "$STAMP"
				die "patch $p does not apply to the 6.12 tree"
			fi
			n=$((n + 1))
		done <"$series"
		log "kernel: applied $n patch(es) from kernel/patches/series"
	else
		log "kernel: no patch series (kernel/patches/series missing or empty)"
	fi

	# --- 3. config ------------------------------------------------------------
	log "kernel: configuring (allnoconfig + kernel/configs/*.config)"
	frags=()
	for f in "$KSRC"/configs/*.config; do [ -f "$f" ] && frags+=("$f"); done
	frags+=("${variant_frags[@]}")
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
	echo "$want_stamp" >"$STAMP"
	: >"$OVERLAY_LIST"
fi

# --- 4. overlay ---------------------------------------------------------------
copied=0
tmp_list=$(mktemp)
while IFS= read -r -d '' src; do
	rel=${src#"$KSRC"/}
	echo "$rel" >>"$tmp_list"
	dst=$KDIR/$rel
	if ! cmp -s "$src" "$dst"; then
		mkdir -p "$(dirname "$dst")"
		cp "$src" "$dst"
		copied=$((copied + 1))
	fi
done < <(find "$KSRC" -path "$KSRC/patches" -prune -o -path "$KSRC/configs" -prune -o -type f -print0 | sort -z)
sort "$tmp_list" >"$OVERLAY_LIST"
rm -f "$tmp_list"
log "kernel: overlay: $(wc -l <"$OVERLAY_LIST") file(s), $copied updated"

[ -n "$PREPARE_ONLY" ] && exit 0

# --- 5. build -----------------------------------------------------------------
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
