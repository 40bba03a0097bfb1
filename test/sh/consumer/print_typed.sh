#!/bin/bash
# SPDX-License-Identifier: MIT
# print() of values typed by a traced program's DWARF (typed): the struct
# a pointer argument points to, member by member, the pointer itself, the
# enum argument by name; and the probe line before it without -q.  A
# struct's char * members (labels) print the strings they point to, cut
# at strsize, in a nested struct and from a struct variable too; a null
# one prints NULL, one that cannot be read its address.  With
# -x oformat=json, print() carries the type's name and those strings by
# member path.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog typed
. "$TESTDIR/sh/lib/check_lib.sh"

out=$("$DTRACE" -q -c "$T 1" -n 'pid$target:a.out:area:entry {
	print(*args[0]); print(args[2]); print(args[1]); }' 2>err |
	grep -v '^done ')
check "struct" "$out" \
	'struct point \{\|    x = 0x1\|    y = 0x2\|    tag = 0x65\|\}\|enum shade LIGHT\|int 0x2\|'

out=$("$DTRACE" -q -c "$T 1" -n 'pid$target:a.out:area:entry {
	print(args[0]); }' 2>err | grep -v '^done ')
check "pointer" "$out" 'struct point \* 0x[0-9a-f]+\|'

out=$("$DTRACE" -c "$T 1" -n 'pid$target:a.out:area:entry {
	print(*args[0]); }' 2>err | grep -v '^done ')
check "probe line" "$out" \
	'CPU +ID +FUNCTION:NAME\| +[0-9]+ +[0-9]+ +area:entry struct point \{\|    x = 0x1\|    y = 0x2\|    tag = 0x65\|\}\|'
L=$B/test/progs/labels
expected='struct label \{\|    name = "first"\|    n = 0x1\|    inner = \{\|        note = "inner note"\|    \}\|    nil = NULL\|    bad = 0x10\|\}\|'
out=$("$DTRACE" -q -c "$L" -n 'pid$target:a.out:show:entry {
	print(*args[0]); }' 2>err)
check "char * members" "$out" "$expected"
out=$("$DTRACE" -q -c "$L" -n 'pid$target:a.out:show:entry {
	this->l = *args[0]; print(this->l); }' 2>err)
check "char * members of a variable" "$out" "$expected"
out=$("$DTRACE" -q -x strsize=4 -c "$L" -n 'pid$target:a.out:show:entry {
	print(args[0]->inner); }' 2>err)
check "strsize" "$out" 'struct <anon> \{\|    note = "inne"\|\}\|'
out=$("$DTRACE" -q -x oformat=json -c "$L" -n 'pid$target:a.out:show:entry {
	print(*args[0]); }' 2>err | grep '"type":"probe"' |
	sed 's/.*"actions":\[//; s/"bytes":"[0-9a-f]*",//')
check "json" "$out" \
	'\{"action":"print","type":"struct label","strings":\{"name":"first","inner.note":"inner note"\}\}\]\}\|'
exit $status
