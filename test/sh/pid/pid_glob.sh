#!/bin/bash
# SPDX-License-Identifier: MIT
# Globs across modules and functions, and module names: a.out, the file
# name, the file name up to a '.'.  (A full path cannot be written in a D
# probe description: D's lexer, like DTrace's, takes '/' for a predicate.)
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

"$DTRACE" -q -c "$T -s 1000 3" \
	-n 'pid$target:*:usleep:entry, pid$target:a.out:a*:entry
	    { printf("%s %s\n", probemod, probefunc); }' >out 2>err
rc=$?
actual=$(grep -v -e '^done' -e '^$' out | sort | uniq -c | awk '{ print $1, $2, $3 }')
expected='3 a.out add
3 a.out alias_fn
3 libc.so.6 usleep'
if [ $rc != 0 ] || [ "$actual" != "$expected" ]; then
	echo "glob: exit $rc, got"; echo "$actual"; echo "expected"
	echo "$expected"; cat err; status=1
fi

for mod in libc.so.6 libc libc.so; do
	"$DTRACE" -q -c "$T -s 1000 2" \
		-n "pid\$target:$mod:usleep:entry { printf(\"%s\\n\", probemod); }" \
		>out 2>err
	rc=$?
	n=$(grep -cx libc.so.6 out)
	if [ $rc != 0 ] || [ "$n" != 2 ]; then
		echo "module '$mod': exit $rc, $n firings"; cat out err
		status=1
	fi
done
exit $status
