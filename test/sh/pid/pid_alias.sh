#!/bin/bash
# SPDX-License-Identifier: MIT
# A function with several names (pidtarget's alias_fn and pt_alias, one
# address): as in DTrace, its probes are named after the preferred name
# (global before weak before local, the fewest leading underscores, the
# shorter, then the first in order: alias_fn), whichever name a
# description uses, in probefunc and in -l alike; a description naming
# either one, or a glob matching either, matches the same probe.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

"$DTRACE" -q -c "$T 2" \
	-n 'pid$target:a.out:pt_alias:entry { printf("A %s %s\n", probefunc, probename); }' \
	-n 'pid$target:a.out:alias_fn:entry { printf("B %s %s\n", probefunc, probename); }' \
	-n 'pid$target:a.out:pt_al*:return { printf("C %s %s\n", probefunc, probename); }' \
	>out 2>err
rc=$?
actual=$(grep -v -e '^done ' -e '^$' out | sort | uniq -c | awk '{ print $1, $2, $3, $4 }')
expected='2 A alias_fn entry
2 B alias_fn entry
2 C alias_fn return'
[ $rc = 0 ] && [ "$actual" = "$expected" ] || fail_run "probefunc" "$expected"

# -l: one probe of each kind, under the preferred name (each -n lists
# what it matches, so the entry probe is listed twice, by one id)
"$DTRACE" -l -c "$T 1" -n 'pid$target:a.out:pt_alias:entry' \
	-n 'pid$target:a.out:alias_fn:entry' -n 'pid$target:a.out:pt_al*:return' \
	>out 2>err
rc=$?
actual=$(sed 1d out | sort -u | awk '{ print $3, $4, $5 }')
expected='a.out alias_fn entry
a.out alias_fn return'
[ $rc = 0 ] && [ "$actual" = "$expected" ] || fail_run "-l" "$expected"

# glibc's __libc_malloc is malloc's other name
if nm -D --defined-only "$(ldd "$T" | awk '/libc.so/ { print $3 }')" 2>/dev/null |
   grep -q ' __libc_malloc$'; then
	"$DTRACE" -l -c "$T 1" -n 'pid$target:libc.so.6:__libc_malloc:entry' \
		-n 'pid$target:libc.so.6:malloc:entry' >out 2>err
	rc=$?
	actual=$(sed 1d out | sort -u | awk '{ print $3, $4, $5 }')
	[ $rc = 0 ] && [ "$actual" = 'libc.so.6 malloc entry' ] ||
		fail_run "__libc_malloc" 'libc.so.6 malloc entry'
fi
exit $status
