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
# regenerates the configuration.
kmake() {
	make -C "$KDIR" CC="$KCC" "$@"
}

log() { printf '%s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Human readable duration from seconds.
fmt_secs() {
	local s=$1
	if [ "$s" -ge 60 ]; then printf '%dm%02ds' $((s / 60)) $((s % 60)); else printf '%ds' "$s"; fi
}
