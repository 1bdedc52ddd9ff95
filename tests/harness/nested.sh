# nested_run ARGS...: a nested run of the test runner (tests/run.sh
# --no-build --no-host ARGS, one short boot), for host tests that check
# what the runner reports. Sets $out (its output, also printed as
# "# nested: " comment lines) and $rc (its exit status). Needs $root.
# shellcheck shell=bash
nested_run() {
	out=$(bash "$root/tests/run.sh" --no-build --no-host "$@" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# nested: /'
}
