#!/bin/bash
# Debian packages of SaaKM for a real machine (make deb), in build/deb/:
#
#   linux-image-REL_*.deb, linux-headers-REL_*.deb
#       the patched 6.12 kernel, built by the kernel's own bindeb-pkg in a
#       tree of its own (build/deb/linux: a git worktree of build/linux's
#       applied series, so build/linux is left as it is), configured from
#       CONFIG (default: this machine's /boot/config-$(uname -r)) plus
#       SaaKM, BPF with sched_ext, and tracing (kernel/configs)
#   saakm-tools_VERSION_ARCH.deb
#       the saakm CLI, libsaakm with its headers and pkg-config file, the
#       man page, the bash completion, saakm-loader with its unit and
#       config, and the policy modules built against that kernel tree
#
# --check (make deb-check; outside make test): builds with the guest
# kernel's configuration, unpacks both packages into a scratch root with
# dpkg -x, boots the packaged kernel image in a guest and, there, loads the
# packaged fifo with the packaged saakm and runs a task on it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

check=
for a in "$@"; do
	case $a in
	--check) check=1 ;;
	*) die "usage: deb.sh [--check] (CONFIG=FILE chooses the kernel configuration)" ;;
	esac
done

# The kernel's bindeb-pkg runs debhelper's dh_listpackages: installed here,
# not by make setup, as only the packages need it
if ! command -v dh_listpackages >/dev/null; then
	[ "$(id -u)" -eq 0 ] || die "debhelper is missing: apt-get install debhelper (as root)"
	log "deb: installing debhelper"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debhelper >/dev/null ||
		die "apt-get install debhelper failed"
fi

out=$BUILD_DIR/deb
tree=$out/linux
version=$(cat "$SAAKM_ROOT/VERSION")
arch=$(dpkg --print-architecture)
t0=$SECONDS

# --- the kernel tree: build/linux's applied series, checked out apart --------
[ -d "$KDIR/.git" ] || die "no kernel tree in $KDIR: run 'make kernel' first"
applied=$(git -C "$KDIR" rev-parse -q --verify refs/saakm/applied) ||
	die "$KDIR has no applied series: run 'make kernel' first"
mkdir -p "$out"
if [ ! -e "$tree/.git" ]; then
	log "deb: checking out the kernel series in ${tree#"$SAAKM_ROOT"/}"
	git -C "$KDIR" worktree add -f --detach "$tree" "$applied" >/dev/null 2>&1 ||
		die "git worktree add $tree failed"
elif [ "$(git -C "$tree" rev-parse HEAD)" != "$applied" ]; then
	log "deb: updating ${tree#"$SAAKM_ROOT"/} to the current series"
	git -C "$tree" checkout -q --detach "$applied"
fi

# --- its configuration --------------------------------------------------------
if [ -n "$check" ]; then
	config=${CONFIG:-$KDIR/.config}
else
	config=${CONFIG:-/boot/config-$(uname -r)}
fi
[ -f "$config" ] || die "no kernel configuration $config (CONFIG=FILE gives one)"
log "deb: configuration from $config, plus kernel/configs/20-bpf-ext.config and 30-saakm.config"
cp "$config" "$tree/.config"
(cd "$tree" && scripts/kconfig/merge_config.sh -m .config \
	"$SAAKM_ROOT/kernel/configs/20-bpf-ext.config" "$SAAKM_ROOT/kernel/configs/30-saakm.config" \
	>"$out/config.log" 2>&1) || die "merging the configuration failed: $out/config.log"
# A distribution's configuration names its own signing certificates, which a
# build outside its packaging does not have; tracing as the tools expect.
(cd "$tree" && scripts/config --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
	--enable FTRACE --enable KPROBE_EVENTS --enable SCHEDSTATS --enable DEBUG_FS)
grep -q '^CONFIG_LOCALVERSION="[^"]' "$tree/.config" ||
	(cd "$tree" && scripts/config --set-str LOCALVERSION "-saakm")
make -s -C "$tree" olddefconfig >>"$out/config.log" 2>&1
for sym in SCHED_CLASS_SAAKM SCHED_CLASS_EXT DEBUG_INFO_BTF; do
	grep -q "^CONFIG_$sym=y" "$tree/.config" || die "CONFIG_$sym did not stick (see $out/config.log)"
done
rel=$(make -s -C "$tree" LOCALVERSION= kernelrelease)

# --- the kernel packages --------------------------------------------------------
# The same relative paths as build/linux: with the directory left out of
# ccache's hash, objects build/linux compiled are found again.
log "deb: building linux-image-$rel and linux-headers-$rel with bindeb-pkg (log: ${out#"$SAAKM_ROOT"/}/kernel.log)"
rm -f "$out"/linux-*.deb "$out"/*.buildinfo "$out"/*.changes
(
	while sleep 60; do log "deb: building... $(fmt_secs $((SECONDS - t0)))"; done &
	ticker=$!
	trap 'kill $ticker 2>/dev/null' EXIT
	# -d: no check of every build dependency the kernel's debian/control
	# lists; what bindeb-pkg uses is here (debhelper: above)
	CCACHE_NOHASHDIR=1 make -C "$tree" CC="$KCC" LOCALVERSION= -j"$(nproc)" KDEB_PKGVERSION="$version-1" \
		DPKG_FLAGS=-d \
		bindeb-pkg >"$out/kernel.log" 2>&1
) || { tail -20 "$out/kernel.log" >&2; die "bindeb-pkg failed (see $out/kernel.log)"; }
image=$(ls "$out"/linux-image-"$rel"_*.deb 2>/dev/null | grep -v dbg | head -1)
[ -n "$image" ] || die "bindeb-pkg made no linux-image-$rel package (see $out/kernel.log)"

# --- the policies, built against that tree --------------------------------------
log "deb: building the policy modules against ${tree#"$SAAKM_ROOT"/}"
rm -rf "$out/policies"
mkdir -p "$out/policies"
for d in "$SAAKM_ROOT"/policies/*/; do
	[ -f "$d/Kbuild" ] || continue
	p=$(basename "$d")
	mkdir -p "$out/policies/$p"
	# the sources only: the objects beside them are build/linux's
	find "$d" -maxdepth 1 -type f \( -name Kbuild -o -name '*.h' -o \( -name '*.c' ! -name '*.mod.c' \) \) \
		-exec cp {} "$out/policies/$p/" \;
	make -s -C "$tree" M="$out/policies/$p" CC="$KCC" modules >"$out/policies/$p.log" 2>&1 ||
		die "policy $p does not build against $rel (see $out/policies/$p.log)"
done

# --- the tools package ------------------------------------------------------------
log "deb: building saakm-tools $version"
root=$out/saakm-tools
rm -rf "$root"
make -s -C "$SAAKM_ROOT/tools" O="$out/tools" install DESTDIR="$root" PREFIX=/usr \
	SYSCONFDIR=/etc UNITDIR=/usr/lib/systemd/system KVER="$rel" POLICYDIR="$out/policies" \
	>"$out/tools.log" 2>&1 || die "make install of the tools failed (see $out/tools.log)"
mkdir -p "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<EOF
Package: saakm-tools
Version: $version
Architecture: $arch
Maintainer: SaaKM developers <saakm@invalid>
Depends: libc6
Recommends: linux-image-$rel
Section: admin
Priority: optional
Description: SaaKM scheduling policies as kernel modules: CLI, library, loader, policies
 The saakm command (load, run, top, stats, record and replay policies),
 libsaakm and its headers, saakm-loader with its systemd unit, and the
 policy modules for kernel $rel.
EOF
echo /etc/saakm/loader.conf >"$root/DEBIAN/conffiles"
cat >"$root/DEBIAN/postinst" <<EOF
#!/bin/sh
set -e
[ ! -d /lib/modules/$rel ] || depmod -a $rel
[ ! -d /run/systemd/system ] || systemctl daemon-reload || true
EOF
chmod 0755 "$root/DEBIAN/postinst"
tools_deb=$out/saakm-tools_${version}_$arch.deb
dpkg-deb --root-owner-group --build "$root" "$tools_deb" >/dev/null
log "deb: done in $(fmt_secs $((SECONDS - t0))):"
ls -1 "$out"/*.deb | sed 's|^|  |'

[ -n "$check" ] || exit 0

# --- the check: install both into a scratch root, boot the packaged kernel -------
scratch=$out/check-root
rm -rf "$scratch"
mkdir -p "$scratch"
dpkg -x "$image" "$scratch"
dpkg -x "$tools_deb" "$scratch"
boot=$out/check-kernel
mkdir -p "$boot/arch/x86/boot"
cp "$scratch/boot/vmlinuz-$rel" "$boot/arch/x86/boot/bzImage"
cp "$scratch/boot/config-$rel" "$boot/.config"
cp "$scratch/boot/System.map-$rel" "$boot/System.map"
log "deb: booting the packaged kernel; the packaged saakm loads the packaged fifo"
cmd="set -e; uname -r | grep -qx '$rel';
export SAAKM_POLICY_PATH=$scratch/lib/modules/$rel/extra/saakm;
$scratch/usr/bin/saakm --version; $scratch/usr/bin/saakm load fifo;
$scratch/usr/bin/saakm list; $scratch/usr/bin/saakm run -p fifo -- $scratch/usr/bin/saakm show 0 | grep -q SCHED_SAAKM;
$scratch/usr/bin/saakm unload fifo; echo deb-check-ok"
bash "$SAAKM_ROOT/scripts/vm.sh" -k "$boot" -t 600 -e "$cmd" -l "$out/check.log"
grep -q deb-check-ok "$out/check.log" || die "the packaged fifo did not load and run (see $out/check.log)"
log "deb: check passed in $(fmt_secs $((SECONDS - t0))): the packaged kernel booted and ran a task on the packaged fifo"
