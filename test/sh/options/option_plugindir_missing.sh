#!/bin/bash
# SPDX-License-Identifier: MIT
# -x plugindir naming no directory is a bad option value: refused before
# any work, as DTrace refuses one, not a warning and a session that goes
# on without the plugins it was asked to load.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

"$DTRACE" -q -x plugindir=/nonexistent -n 'BEGIN { exit(0); }' >out 2>err
rc=$?
[ "$rc" = 1 ] || fail "missing directory: exit status $rc, expected 1"
[ "$(cat err)" = "dtrace: failed to set option -x plugindir=/nonexistent: No such file or directory" ] ||
	fail "missing directory: $(cat err)"

: >afile
"$DTRACE" -q -x plugindir="$PWD/afile" -n 'BEGIN { exit(0); }' >out 2>err
rc=$?
[ "$rc" = 1 ] || fail "a file: exit status $rc, expected 1"
[ "$(cat err)" = "dtrace: failed to set option -x plugindir=$PWD/afile: Not a directory" ] ||
	fail "a file: $(cat err)"

mkdir empty
"$DTRACE" -q -x plugindir="$PWD/empty" -n 'BEGIN { printf("ran\n"); exit(0); }' \
	>out 2>err || fail "an empty directory: $(cat err)"
[ "$(cat out)" = ran ] || fail "an empty directory: $(cat out)"
exit $status
