#!/bin/bash
# Install what the benchmarks need; idempotent (a second run installs nothing).
#
#   apt: rt-tests (hackbench), linux-perf (perf bench), 7zip, stockfish, ffmpeg,
#        clang-19/llvm-19 + libelf/zlib (the sched_ext twin's BPF build)
#   pip: matplotlib into build/venv (the chart)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/build/venv

pkgs=(rt-tests linux-perf 7zip stockfish ffmpeg clang-19 llvm-19 libelf-dev zlib1g-dev pkg-config)
missing=()
for p in "${pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "bench-setup: apt-get install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null && apt-get install -y -q "${missing[@]}" >/dev/null; }
fi

if [ ! -x "$venv/bin/python" ]; then
	echo "bench-setup: creating $venv"
	python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
	echo "bench-setup: pip install matplotlib into $venv"
	"$venv/bin/pip" install -q matplotlib
fi
