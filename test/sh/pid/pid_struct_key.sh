#!/bin/bash
# SPDX-License-Identifier: MIT
# A struct read from the traced process (*args[0], a struct point of the
# typed program) as the key of an associative array and of an
# aggregation: its bytes, so that equal structs share an element; the
# aggregation prints each key as the table of its 16 bytes.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog typed
. "$TESTDIR/sh/lib/check_lib.sh"

out=$("$DTRACE" -q -c "$T 2" -n 'pid$target:a.out:area:entry {
	seen[*args[0]]++; @c[*args[0]] = sum(args[0]->x);
	printf("%d %d\n", args[0]->x, seen[*args[0]]); }' 2>err |
	grep -v '^done ')
H='             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef'
check "keys" "$out" "1 1\|2 1\|\|\|$H\|         0: 01 00 00 00 02 00 00 00 65 00 00 00 00 00 00 00  ........e.......\|                1\|\|$H\|         0: 02 00 00 00 03 00 00 00 66 00 00 00 00 00 00 00  ........f.......\|                2\|"
exit $status
