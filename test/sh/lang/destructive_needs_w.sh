#!/bin/bash
# SPDX-License-Identifier: MIT
# A destructive action compiles without -w, and the enabling is refused as
# DTrace refuses it; with -w (or -x destructive) it runs.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

"$DTRACE" -n 'BEGIN { system("echo ran"); exit(0); }' >out 2>err
rc=$?
expected="dtrace: description 'BEGIN ' matched 1 probe
dtrace: could not enable tracing: Destructive actions not allowed"
if [ $rc != 1 ] || [ -s out ] || [ "$(cat err)" != "$expected" ]; then
	echo "without -w: exit $rc, stdout:"; cat out; echo "stderr:"; cat err
	status=1
fi

for opt in -w "-x destructive"; do
	# shellcheck disable=SC2086
	"$DTRACE" -q $opt -n 'BEGIN { system("echo ran"); exit(0); }' \
		>out 2>err
	rc=$?
	if [ $rc != 0 ] || [ "$(sed '/^$/d' out)" != "ran" ]; then
		echo "$opt: exit $rc, stdout:"; cat out; echo "stderr:"; cat err
		status=1
	fi
done
exit $status
