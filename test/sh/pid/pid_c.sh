#!/bin/bash
# SPDX-License-Identifier: MIT
# -c: the command starts stopped before any of its code runs (main's entry
# is seen), dtrace exits when it exits, END fires, and dtrace says so.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

"$DTRACE" -c "$T 2" -q \
	-n 'pid$target:a.out:main:entry { printf("main %d\n", pid == $target); }' \
	-n 'END { printf("end\n"); }' >out 2>err
rc=$?
expected='main 1
end'
# the program's own "done" line shares stdout, in no fixed order
if [ $rc != 0 ] || [ "$(grep -v -e '^done ' -e '^$' out)" != "$expected" ] ||
   ! grep -qx 'done 78' out; then
	echo "exit $rc; stdout:"; cat out; echo "stderr:"; cat err
	echo "expected:"; echo "$expected"
	exit 1
fi

# without -q, dtrace reports the exit on stderr
"$DTRACE" -c "$T 1" -n 'pid$target:a.out:add:entry' >out 2>err
rc=$?
if [ $rc != 0 ] || ! grep -Eqx 'dtrace: pid [0-9]+ has exited' err; then
	echo "exit $rc; no 'has exited' message:"; cat err
	exit 1
fi
exit 0
