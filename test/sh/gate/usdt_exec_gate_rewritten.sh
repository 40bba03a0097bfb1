#!/bin/bash
# SPDX-License-Identifier: MIT
# A program rewritten in place (same inode, new contents) after the exec
# gate and the usdt provider saw it is read again: with a "provider*"
# description, a program fires first thing in main() with a constant in
# its note ($42); rewritten with the same code but $43 there and run
# again, its first firing must read 43, not the first version's 42 (the
# gate knows files by device, inode and mtime; the provider re-reads a
# file whose size or mtime changed and gives the site its new arguments).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt
status=0

cat >prog.c <<'C'
#include <sys/sdt.h>
int main(void)
{
	DTRACE_PROBE1(exg_rw, first, VALUE);
	return 0;
}
C
gcc -O2 -DVALUE=42 -o prog42 prog.c && gcc -O2 -DVALUE=43 -o prog43 prog.c ||
	exit 1
cp prog42 prog || exit 1

"$DTRACE" -Z -q -n '
BEGIN { printf("ready\n"); }
exg_rw*:::first /execname == "prog"/ { printf("first %d %d\n", pid, arg0); }' \
	>out 2>err &
dt=$!
for _ in $(seq 100); do grep -q ready out 2>/dev/null && break; sleep 0.1; done
grep -q ready out || { cat err; kill $dt; exit 1; }

./prog & p1=$!
wait $p1
ino=$(stat -c %i prog)
cat prog43 >prog || exit 1
touch -d '+1 second' prog
[ "$(stat -c %i prog)" = "$ino" ] || fail "the rewrite made a new inode"
./prog & p2=$!
wait $p2
sleep 0.3
kill -INT $dt
wait $dt

grep -qx "first $p1 42" out || fail "the first version's firing was missed"
grep -qx "first $p2 43" out || fail "the rewritten program's firing did not read 43"
if [ $status != 0 ]; then
	echo "--- out"; cat out; echo "--- err"; cat err
fi
exit $status
