#!/bin/bash
# SPDX-License-Identifier: MIT
# Struct and array variables filled from a traced process's memory:
# this->p = *args[0] and g = *args[0] copy the program's struct point,
# a thread-local and an associative array element take copies of them,
# members are changed in the copies only; an element indexed by a
# member; a bad address to copy from faults.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog typed
. "$TESTDIR/sh/lib/check_lib.sh"

cat > s.d <<'D'
struct point g;
self struct point s;
struct point m[int];
int a[4];

pid$target:a.out:area:entry
{
	this->p = *args[0];
	g = *args[0];
	self->s = g;
	m[args[0]->x] = this->p;
	a[args[0]->x % 4] = args[0]->y;
	g.tag = g.tag + 1000;
	self->s.x = 77;
	printf("%d %d %d | %d %d %d | %d %d | %d %d %d | %d %d\n",
	    this->p.x, this->p.y, this->p.tag, g.x, g.y, g.tag,
	    self->s.x, self->s.y, m[1].y, m[2].tag, m[5].x, a[1], a[2]);
}
D
out=$("$DTRACE" -q -c "$T 2" -s s.d 2>err | grep -v '^done ')
check "copies" "$out" \
	'1 2 101 \| 1 2 1101 \| 77 2 \| 2 0 0 \| 2 0\|2 3 102 \| 2 3 1102 \| 77 3 \| 2 102 0 \| 2 3\|'

"$DTRACE" -q -c "$T 1" -n 'struct point g; pid$target:a.out:area:entry {
	g = *(struct point *)8; }' >out 2>err
grep -q 'invalid address (0x8)' err ||
	{ echo "FAIL: bad address not reported:"; cat err; status=1; }
exit $status
