#!/bin/bash
# SPDX-License-Identifier: MIT
# A pointer held in a variable is subscripted: this->p[i], self->p[i] and
# a global's p[i] read the traced program's memory (argv[0] here).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
Tabs=$(cd "$(dirname "$T")" && pwd)/pidtarget

out=$("$DTRACE" -q -c "$Tabs 1" -n 'pid$target:a.out:main:entry {
	this->p = (char **)arg1; self->q = (char **)arg1; g = (char **)arg1;
	printf("%c%c%c %s\n", this->p[0][1], self->q[0][2], g[0][3],
	       stringof(this->p[0])); }' 2>err | grep -v '^done ')
expected="${Tabs:1:3} $Tabs"
if [ "$out" != "$expected" ]; then
	echo "FAIL: got '$out', expected '$expected'"; cat err; exit 1
fi
exit 0
