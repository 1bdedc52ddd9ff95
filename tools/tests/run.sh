#!/bin/bash
# Build tools/ and run its host unit tests (no SaaKM kernel needed): the
# libsaakm parser test and the CLI test. Prints one TAP stream and exits
# non-zero if any test failed. O=/abs/dir selects the build directory
# (default build/tools).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
O=${O:-$root/build/tools}

if ! out=$(make -s -C "$root/tools" O="$O" test-progs 2>&1); then
	echo "$out" | sed 's/^/# /'
	echo "not ok 1 build tools"
	echo "1..1"
	exit 1
fi

# Renumber the TAP lines of every test into one stream.
status=0
{
	"$O/tests/test_parser" "$here/fixtures" || status=1
	bash "$here/t_cli.sh" "$O/saakm" || status=1
	echo "# exit $status"
} | awk '
	/^ok / || /^not ok / {
		sub(/^(not )?ok [0-9]+/, ($1 == "ok" ? "ok " : "not ok ") ++n)
		if ($1 == "not") bad++
	}
	/^1\.\.[0-9]+$/ { next }
	/^# exit / { if ($3 != 0) bad++; next }
	{ print }
	END { printf "1..%d\n", n; printf "# %d passed, %d failed\n", n - bad, bad; exit bad != 0 }'
