#!/bin/bash
# SPDX-License-Identifier: MIT
# pid return probes: arg1 (and args[1]) is the return value; arg0 is the
# offset of the returning instruction in DTrace, which a uretprobe cannot
# know: 0 here (documented).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

"$DTRACE" -q -c "$T 3" \
	-n 'pid$target:a.out:add:return { printf("%s %d %d %d\n", probename, arg0, arg1, args[1]); }' \
	-n 'pid$target:a.out:sum8:return /arg1 != 36/ { printf("bad sum8 %d\n", arg1); }' \
	>out 2>err
rc=$?
expected='return 0 1 1
return 0 3 3
return 0 5 5'
# the program's own "done" line shares stdout, in no fixed order
actual=$(grep -v -e '^done ' -e '^$' out)
if [ $rc != 0 ] || [ "$actual" != "$expected" ] || ! grep -qx 'done 123' out; then
	echo "exit $rc; stdout:"; cat out; echo "stderr:"; cat err
	echo "expected:"; echo "$expected"
	exit 1
fi
exit 0
