#!/bin/bash
# Install what the SaaKM build needs on Debian 12 (run as root):
#   - apt packages: 6.12 kernel source, kernel build dependencies, QEMU,
#     workloads (hackbench from rt-tests, stress-ng), clang/llvm for BPF,
#     tracing tools (trace-cmd, perf) that the guest runs from the host's
#     root filesystem; tmux and Prometheus' Python parser for the CLI's
#     tests (saakm top, saakm stats --openmetrics); pkg-config for the
#     test of make install
#   - a Python venv in build/venv with virtme-ng (pinned)
# Idempotent: a second run checks with dpkg and the venv and installs nothing,
# without touching the network.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

VIRTME_NG_VERSION=1.42

APT_PACKAGES=(
	linux-source-6.12
	build-essential flex bison bc libelf-dev libssl-dev dwarves cpio kmod
	python3 python3-venv
	qemu-system-x86
	rt-tests stress-ng
	clang-19 llvm-19 lld-19
	tmux python3-prometheus-client
	ccache busybox-static zstd xz-utils rsync patch
	trace-cmd linux-perf
	pkg-config
)

did=0

missing=()
for p in "${APT_PACKAGES[@]}"; do
	dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}); run 'make setup' as root"
	log "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
	did=1
fi

venv_ok() {
	[ -x "$VENV/bin/vng" ] &&
		[ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("virtme-ng"))' 2>/dev/null)" = "$VIRTME_NG_VERSION" ]
}
if ! venv_ok; then
	log "setup: creating $VENV with virtme-ng==$VIRTME_NG_VERSION"
	mkdir -p "$BUILD_DIR"
	python3 -m venv "$VENV"
	"$VENV/bin/pip" install -q --disable-pip-version-check "virtme-ng==$VIRTME_NG_VERSION"
	venv_ok || die "virtme-ng installation in $VENV failed"
	did=1
fi

if command -v ccache >/dev/null 2>&1 && [ ! -f "$BUILD_DIR/.ccache-sized" ]; then
	ccache -M 5G >/dev/null
	mkdir -p "$BUILD_DIR"
	touch "$BUILD_DIR/.ccache-sized"
fi

if [ "$did" -eq 0 ]; then
	log "setup: nothing to do"
else
	log "setup: done"
fi
