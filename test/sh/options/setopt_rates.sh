#!/bin/bash
# SPDX-License-Identifier: MIT
# setopt() changes switchrate, aggrate and statusrate while tracing, as
# DTrace's does (a time, as -x takes it: "10hz", "50ms"); a value that is
# no time is refused in DTrace's words, and tracing goes on.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

"$DTRACE" -q -n 'BEGIN {
	setopt("switchrate", "10hz");
	setopt("aggrate", "50ms");
	setopt("statusrate", "1s");
	setopt("switchrate", "often");
	printf("still tracing\n");
	exit(0);
}' >out 2>err
rc=$?
experr='dtrace: couldn'"'"'t set option "switchrate" to "often": Invalid value for specified option'
[ $rc = 0 ] && [ "$(grep -v '^$' out)" = "still tracing" ] &&
	[ "$(cat err)" = "$experr" ] || fail_run "setopt() of rates" "$experr"
exit 0
