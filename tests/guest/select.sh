# Test selection and tags, in one place for both runners: the host's
# tests/run.sh (bash) and the guest's tests/guest/run-suite.sh (sh) source it.
# shellcheck shell=sh
#
# Tags are comments in a test's source, SAAKM_TAG("...") in a C test's
# source, or the strings SAAKM_TAG leaves in its binary (saakm_test.h):
#   saakm-test: opt-in       run only when selected by name
#   saakm-test: timeout=N    seconds before the test is killed
#   saakm-test: normal-only  skipped on the debug kernel
#   saakm-test: debug-only   (host tests) run in the debug pass only
#   saakm-test: full-only    run by make test-full only (SAAKM_FULL=1): soaks

# saakm_tag FILE TAG: print TAG's value ("1" if it has none); false if FILE
# does not carry the tag.
saakm_tag() {
	_v=$(grep -a -m1 -oE "(saakm-test: |SAAKM_TAG\(\")$2[=0-9a-zA-Z_]*" "$1" 2>/dev/null) || return 1
	_v=${_v#*"$2"}
	if [ -n "$_v" ]; then echo "${_v#=}"; else echo 1; fi
}

# saakm_selected NAME OPT_IN [PATTERN...]: true if test NAME runs. Without
# patterns every test runs that is not opt-in (OPT_IN 1, or "full" for a
# full-only test outside make test-full); with patterns, those whose name
# contains one of them.
saakm_selected() {
	_name=$1 _opt_in=$2
	shift 2
	# a full-only test is opt-in in make test
	[ "$_opt_in" = full ] && { [ "${SAAKM_FULL:-0}" = 1 ] && _opt_in=0 || _opt_in=1; }
	if [ $# -eq 0 ]; then
		[ "$_opt_in" = 0 ]
		return
	fi
	for _p in "$@"; do
		[ -n "$_p" ] || continue
		case $_name in *"$_p"*) return 0 ;; esac
	done
	return 1
}

# saakm_test_name FILE: the test's name, from t_NAME.sh, t_NAME.c or t_NAME.
saakm_test_name() {
	_n=${1##*/}
	_n=${_n#t_}
	_n=${_n%.sh}
	echo "${_n%.c}"
}

# saakm_opt_in FILE: "1" for an opt-in test, "full" for a full-only one
# (opt-in outside make test-full), else "0"; saakm_selected's OPT_IN.
saakm_opt_in() {
	if saakm_tag "$1" opt-in >/dev/null; then
		echo 1
	elif saakm_tag "$1" full-only >/dev/null; then
		echo full
	else
		echo 0
	fi
}

# saakm_plan_line FILE SELECTED: if the function SELECTED (called with the
# test's name and saakm_opt_in) says the test runs, print its line of the
# guest's plan: "NAME<tab>FILE<tab>LIMIT<tab>NORMAL_ONLY" (LIMIT in
# seconds, before SAAKM_TIMEOUT_SCALE; NORMAL_ONLY 1 or 0).
saakm_plan_line() {
	_pn=$(saakm_test_name "$1")
	"$2" "$_pn" "$(saakm_opt_in "$1")" || return 0
	_pl=$(saakm_tag "$1" timeout) || _pl=120
	_po=0
	saakm_tag "$1" normal-only >/dev/null && _po=1
	printf '%s\t%s\t%s\t%s\n' "$_pn" "$1" "$_pl" "$_po"
}
