#!/bin/bash
# Harness test: tests/debug-build.sh wait brings the debug kernel up to date
# after a background build ends. A build started by an earlier make test
# compiles the sources as they were then; if the class changed meanwhile,
# the debug pass must not boot the old kernel. make is replaced by a stub
# that records how it was called.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
. "$root/tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/build/logs"
cat >"$tmp/bin/make" <<STUB
#!/bin/sh
echo "KERNEL_VARIANT=\${KERNEL_VARIANT:-} \$*" >>"$tmp/make.calls"
echo "kernel: built 6.12-stub in 1s: build/linux-debug/arch/x86/boot/bzImage"
exit \${STUB_RC:-0}
STUB
chmod +x "$tmp/bin/make"

# a background build that finished well, as 'debug-build.sh start' leaves it
echo 0 >"$tmp/build/debug-build.rc"
echo "kernel: built 6.12-old in 20m: build/linux-debug/arch/x86/boot/bzImage" >"$tmp/build/logs/debug-build.out"
out=$(PATH=$tmp/bin:$PATH BUILD_DIR=$tmp/build bash "$root/tests/debug-build.sh" wait 2>&1)
rc=$?
echo "$out" | sed 's/^/# wait: /'
check "a finished build: wait exits 0" [ "$rc" -eq 0 ]
check "a finished build: the debug kernel is brought up to date (make kernel, debug)" \
	grep -q "^KERNEL_VARIANT=debug .*kernel$" "$tmp/make.calls"

# ... and a failure of that update is the result
rm -f "$tmp/make.calls"
echo 0 >"$tmp/build/debug-build.rc"
PATH=$tmp/bin:$PATH BUILD_DIR=$tmp/build STUB_RC=2 bash "$root/tests/debug-build.sh" wait >/dev/null 2>&1
rc=$?
check "the update failing: wait fails" [ "$rc" -ne 0 ]
done_testing
