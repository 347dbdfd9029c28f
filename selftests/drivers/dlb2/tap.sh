# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034  # n and failed: the sourcing script's
#
# TAP for the dlb2 shell kselftests (sourced by accdirect.sh, dlb2ctl.sh
# and dlb2_observe.sh; installed beside them through TEST_FILES).
# ok NAME EXPR: one case, EXPR evaluated by the shell: "ok N NAME" or
# "not ok N NAME"; on a failure the script's tap_on_failure function runs
# if it has one (accdirect.sh prints its programs' logs).  $n counts the
# cases, $failed is 1 after a failure: the script ends with "1..$n" and
# exit $failed.
n=0 failed=0

ok() {
	n=$((n + 1))
	if eval "$2"; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		if declare -F tap_on_failure >/dev/null; then
			tap_on_failure
		fi
		failed=1
	fi
}
