#!/bin/bash
# Harness test: the guest's time limit. In make test it is the CI tier's
# (900 s on the normal kernel); in make test-full (SAAKM_FULL=1), whose long
# rounds outlast that, it is the sum of the selected tests' limits (times
# SAAKM_TIMEOUT_SCALE) plus 5 minutes for the boot; --repeat N gives N
# times the limit; an explicit TIMEOUT wins. virtme-ng is replaced by fake-vng/vng in its "panic" mode, which
# boots nothing: only the runner's "booting a guest" line is looked at.
set -u
. "$(dirname "$0")/fake-kernel.sh"

# limit ENV...: the guest timeout the runner announces with these variables
# (and the runner's arguments in RUN_ARGS).
limit() {
	# shellcheck disable=SC2086 # RUN_ARGS are words
	env "$@" FAKE_VNG_MODE=panic FAKE_VNG_DIR="$tmp" KDIR="$tmp/kernel" \
		SAAKM_VNG="$root/tests/harness/host/fake-vng/vng" \
		bash "$root/tests/run.sh" --no-build --no-host -t boot_version ${RUN_ARGS:-} 2>&1 |
		sed -n 's/^test: booting a guest .*timeout \([0-9]*\)s).*/\1/p'
}

got=$(limit SAAKM_FULL=0 SAAKM_TIMEOUT_SCALE=10)
check "make test: the CI tier's limit, 900 s (got ${got:-none})" [ "$got" = 900 ]
got=$(limit SAAKM_FULL=1 SAAKM_TIMEOUT_SCALE=10)
check "make test-full: the test's limit (120 s x 10) and 300 s to boot (got ${got:-none})" [ "$got" = 1500 ]
got=$(limit SAAKM_FULL=1 SAAKM_TIMEOUT_SCALE=1)
check "make test-full: never below the CI tier's limit (got ${got:-none})" [ "$got" = 900 ]
got=$(limit SAAKM_FULL=1 SAAKM_TIMEOUT_SCALE=10 TIMEOUT=77)
check "an explicit TIMEOUT wins (got ${got:-none})" [ "$got" = 77 ]
got=$(RUN_ARGS="--repeat 3" limit SAAKM_FULL=0)
check "--repeat 3: three times the CI tier's limit (got ${got:-none})" [ "$got" = 2700 ]
got=$(RUN_ARGS="--repeat 3" limit SAAKM_FULL=0 TIMEOUT=77)
check "--repeat 3 with an explicit TIMEOUT: that one (got ${got:-none})" [ "$got" = 77 ]
done_testing
