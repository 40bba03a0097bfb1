#!/bin/bash
# SPDX-License-Identifier: MIT
# alloca() gives zeroed D scratch memory; bcopy() copies user memory
# into it (argv[0] of the traced program here); a destination outside
# scratch memory faults.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
Tabs=$(cd "$(dirname "$T")" && pwd)/pidtarget

out=$("$DTRACE" -q -c "$Tabs 1" -n 'pid$target:a.out:main:entry {
	this->buf = (char *)alloca(16); printf("[%d]", this->buf[15]);
	bcopy(*(uint64_t *)copyin(arg1, 8), this->buf, 8);
	printf("[%s]\n", stringof(this->buf)); }' 2>err | grep -v '^done ')
expected="[0][${Tabs:0:8}]"
[ "$out" = "$expected" ] ||
	{ echo "FAIL: got '$out', expected '$expected'"; cat err; status=1; }

"$DTRACE" -q -c "$Tabs 1" -n 'pid$target:a.out:main:entry {
	bcopy(arg1, arg1, 8); }' >out 2>err
grep -q "invalid address" err ||
	{ echo "FAIL: bcopy to user memory did not fault:"; cat err; status=1; }
exit $status
