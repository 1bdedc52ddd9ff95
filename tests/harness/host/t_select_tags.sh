#!/bin/bash
# Harness test: tests/guest/select.sh reads a test's tags from a shell
# comment, from SAAKM_TAG("...") in a C source (the runner reads the source
# when the binary is missing or stale) and from the string SAAKM_TAG leaves
# in a binary; a file without the tag does not carry it.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
. "$root/tests/guest/tap.sh"
. "$root/tests/guest/select.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The tags are assembled here, so that this file does not carry them itself.
st=saakm-test T=SAAKM_TAG
printf '#!/bin/sh\n# %s: opt-in\n# %s: timeout=240\n' "$st" "$st" >"$tmp/t_a.sh"
printf '#include "saakm_test.h"\n%s("opt-in");\n%s("timeout=300");\n' "$T" "$T" >"$tmp/t_b.c"
printf 'ELF\0\0%s: normal-only\0' "$st" >"$tmp/t_c"
printf '#include "saakm_test.h"\nint main(void) { return 0; }\n' >"$tmp/t_d.c"

check "a shell comment: opt-in" saakm_tag "$tmp/t_a.sh" opt-in
check "a shell comment: timeout=240" [ "$(saakm_tag "$tmp/t_a.sh" timeout)" = 240 ]
check "a C source: opt-in" saakm_tag "$tmp/t_b.c" opt-in
check "a C source: timeout=300" [ "$(saakm_tag "$tmp/t_b.c" timeout)" = 300 ]
check "a binary: normal-only" saakm_tag "$tmp/t_c" normal-only
check_not "a C source without tags is not opt-in" saakm_tag "$tmp/t_d.c" opt-in
done_testing
