#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 150
# -x oformat=folded and flamegraph: a program whose call tree is known
# (main calls a() 100 times, which calls c() 3 times, and b() 100 times,
# which calls c() once) traced on c's entry.  Folded: one line per stack,
# frames by function (the three call sites in a() are one stack),
# outermost first, the weight last; the keys beside the stack lead it;
# sum() weighs by its value.  Flame graph: an SVG that headless Chromium
# renders with a() three times as wide as b() (what the browser laid out,
# data-shown), zooms on a() and searches as a link says, and screenshots.
# profile-997 samples make one too.  Refused: a program without a stack
# aggregation, a file that cannot be made; a failed session leaves -o's
# file as it was, a finished one replaces it whole.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc

cat >tree.c <<'C'
#include <time.h>
__attribute__((noinline)) int c(int i)
{
	__asm__ volatile("" ::: "memory");
	return i;
}
__attribute__((noinline)) int a(int i)
{
	int s = 0;
	for (int k = 0; k < 3; k++)
		s += c(i);
	return s;
}
__attribute__((noinline)) int b(int i)
{
	return c(i) + 1;
}
__attribute__((noinline)) void spin(double seconds)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}
__attribute__((noinline)) void hot(void) { spin(1.2); }
__attribute__((noinline)) void cold(void) { spin(0.3); }
int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 100; i++)
		s += a(i) + b(i);
	if (argc > 1) {
		hot();
		cold();
	}
	return s & 1;
}
C
cc -O1 -fno-omit-frame-pointer -fno-inline -o tree tree.c || exit 1

# folded
"$DTRACE" -q -x oformat=folded -c ./tree \
	-n 'pid$target::c:entry { @[ustack()] = count(); }' >out 2>err ||
	fail_run "folded"
grep -q ';tree`main;tree`a;tree`c 300$' out && grep -q ';tree`main;tree`b;tree`c 100$' out &&
	[ "$(wc -l <out)" = 2 ] || { fail "folded counts"; cat out err; }
"$DTRACE" -q -x oformat=folded -c ./tree \
	-n 'pid$target::c:entry { @[execname, ustack(20)] = sum(arg0); }' >out 2>err ||
	fail_run "folded, sum"
grep -q '^tree;.*;tree`a;tree`c 14850$' out && grep -q '^tree;.*;tree`b;tree`c 4950$' out ||
	{ fail "folded sum() with a key"; cat out err; }

# the flame graph, in a browser
"$DTRACE" -q -x oformat=flamegraph -o fg.svg -c ./tree \
	-n 'pid$target::c:entry { @[ustack()] = count(); }' >out 2>err ||
	fail_run "flamegraph"
head -c 5 fg.svg | grep -q '^<?xml' || fail "not an SVG"
grep -q 'http' fg.svg && grep -v 'xmlns="http://www.w3.org/2000/svg"' fg.svg | grep -q 'http' &&
	fail "the SVG fetches something"

if ! command -v chromium >/dev/null; then
	echo "chromium is not installed (apt-get install chromium): the picture is not checked"
	exit $status
fi
browse() {	# OUTPUT ARGS...: headless Chromium on fg.svg
	timeout 60 chromium --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --window-size=1200,240 "$@" 2>/dev/null
}
# the width the browser gave the frame named $2 (first of them) in DOM $1
shown() {
	sed -n 's/.*data-shown="\([0-9.]*\)"><title>'"$2"' (.*/\1/p' "$1" | head -1
}
browse --dump-dom "file://$PWD/fg.svg" >dom
all=$(shown dom all) fa=$(shown dom 'tree`a') fb=$(shown dom 'tree`b')
[ "$all" = 1180.0 ] && [ "$fa" = 885.0 ] && [ "$fb" = 295.0 ] ||
	fail "rendered widths: all $all, a $fa, b $fb (want 1180.0, 885.0, 295.0)"
browse --dump-dom "file://$PWD/fg.svg#zoom=tree%60a&search=tree%60b" >dom
fa=$(shown dom 'tree`a')
[ "$fa" = 1180.0 ] || fail "zoomed on a(): a is $fa wide, not 1180.0"
grep -q '>Matched: 25.00%<' dom || fail "search of b(): $(grep -o 'Matched[^<]*' dom)"
browse --screenshot="$PWD/fg.png" "file://$PWD/fg.svg"
[ "$(head -c 8 fg.png | od -An -c | tr -d ' \n')" = '211PNG\r\n032\n' ] ||
	fail "no screenshot"

# profile-997: hot() samples about four times as often as cold()
"$DTRACE" -q -x oformat=folded -c './tree spin' \
	-n 'profile-997 /pid == $target/ { @[ustack()] = count(); }' >out 2>err ||
	fail_run "profile-997"
h=$(awk '/tree`hot;/ { s += $NF } END { print s + 0 }' out)
c=$(awk '/tree`cold;/ { s += $NF } END { print s + 0 }' out)
[ "$h" -gt $((2 * c)) ] && [ "$c" -gt 0 ] || fail "samples: hot $h, cold $c"

# refusals: no stack aggregation, no directory; a failed run leaves the
# file as it was, and no temporary file
echo before >kept.svg
"$DTRACE" -q -x oformat=flamegraph -o kept.svg -c ./tree \
	-n 'pid$target::c:entry { @ = count(); }' >out 2>err
rc=$?
[ $rc = 1 ] && grep -qx 'dtrace: -x oformat=flamegraph: no aggregation of count() or sum() is keyed by a stack (ustack(), stack())' err ||
	fail "no stack: exit $rc, $(cat err)"
[ "$(cat kept.svg)" = before ] || fail "a failed run changed -o's file"
ls | grep -q 'dtrace-' && fail "a temporary file was left: $(ls | grep dtrace-)"
"$DTRACE" -q -x oformat=folded -o nodir/x.folded -c ./tree \
	-n 'pid$target::c:entry { @[ustack()] = count(); }' >out 2>err
rc=$?
[ $rc = 1 ] && grep -q "^dtrace: failed to open output file 'nodir/x.folded': No such file or directory" err ||
	fail "no directory: exit $rc, $(cat err)"
exit $status
