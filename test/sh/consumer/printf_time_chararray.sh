#!/bin/bash
# SPDX-License-Identifier: MIT
# printf's %T (an RFC 822 date, local time) beside %Y, and %s of a
# char[N] member of a struct in user memory: at most N characters, with
# widths and precisions.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

out=$(TZ=UTC "$DTRACE" -q -n 'BEGIN { printf("%T|%Y|%-32T|\n",
	1000000000000000000, 1000000000000000000, (uint64_t)0); exit(0); }' \
	2>err)
expected='Sun, 09 Sep 2001 01:46:40 UTC|2001 Sep  9 01:46:40|Thu, 01 Jan 1970 00:00:00 UTC   |'
if [ "$out" != "$expected" ]; then
	echo "FAIL %T: got '$out', expected '$expected'"; cat err; status=1
fi

# argv[0] is the path of the program, seen through struct name
Tabs=$(cd "$(dirname "$T")" && pwd)/pidtarget
out=$("$DTRACE" -q -c "$Tabs 1" -n 'struct name { char n[4]; char m[8]; };
	pid$target:a.out:main:entry {
	this->p = (struct name *)*(uint64_t *)copyin(arg1, 8);
	printf("[%s][%s][%.2s][%-6s][%S]\n", this->p->n, this->p->m,
	       this->p->m, this->p->n, this->p->n); }' 2>err | grep -v '^done ')
n=${Tabs:0:4} m=${Tabs:4:8}
expected="[$n][$m][${m:0:2}][$(printf '%-6s' "$n")][$n]"
if [ "$out" != "$expected" ]; then
	echo "FAIL char[N]: got '$out', expected '$expected'"; cat err; status=1
fi
exit $status
