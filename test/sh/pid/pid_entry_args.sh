#!/bin/bash
# SPDX-License-Identifier: MIT
# pid entry probes: arg0..arg5 from registers, arg6.. from the stack, args[]
# as uint64_t, probemod/probefunc; the traced program computes the same.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

"$DTRACE" -q -c "$T 3" \
	-n 'pid$target:a.out:add:entry { printf("add %d %d %s %s\n", arg0, arg1, probemod, probefunc); }' \
	-n 'pid$target:a.out:sum8:entry { printf("sum8 %d %d %d %d\n", arg0, arg5, arg6, args[7]); }' \
	>out 2>err
rc=$?
expected='add 0 1 a.out add
sum8 1 6 7 8
add 1 2 a.out add
sum8 1 6 7 8
add 2 3 a.out add
sum8 1 6 7 8'
# the program's own "done" line shares stdout, in no fixed order
actual=$(grep -v -e '^done ' -e '^$' out)
if [ $rc != 0 ] || [ "$actual" != "$expected" ] || ! grep -qx 'done 123' out; then
	echo "exit $rc; stdout:"; cat out; echo "stderr:"; cat err
	echo "expected:"; echo "$expected"
	exit 1
fi
exit 0
