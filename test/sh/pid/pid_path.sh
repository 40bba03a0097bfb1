#!/bin/bash
# SPDX-License-Identifier: MIT
# The pid provider's module field as a full path: pid$target:/path/lib:fn:
# entry, with and without a predicate right after the description (a '/'
# in a field that starts with '/' is the path's, any other starts the
# predicate), -l and tracing; the -n description echoed whole.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
LIBC=$(ldd "$T" | awk '$1 == "libc.so.6" { print $3 }')
[ -n "$LIBC" ] || exit 77
EXE=$(readlink -f "$T")

# 1. the executable by path, a predicate glued to the description
out=$("$DTRACE" -c "$T 3" -n "pid\$target:$EXE:add:entry/arg0 >= 1/{ @ = count(); }" 2>err |
	grep -v '^done ')
if ! grep -Eq '^ +2$' <<<"$out" ||
   ! grep -q "description 'pid\$target:$EXE:add:entry' matched 1 probe" err; then
	echo "exe by path:"; echo "$out"; cat err; status=1
fi

# 2. -l of a library's functions by path: the module is its file name
"$DTRACE" -l -c "$T 1" -n "pid\$target:$LIBC:malloc:return" >out 2>err
if ! sed -n 2p out | grep -Eqx -- " *[0-9]+ +pid[0-9]+ +libc\.so\.6 +malloc return"; then
	echo "-l by path:"; cat out err; status=1
fi

# 3. a path that is not mapped matches nothing
if "$DTRACE" -c "$T 1" -n 'pid$target:/nonexistent/libz.so:f:entry { }' >out 2>err ||
   ! grep -q 'does not match any probes' err; then
	echo "unmapped path:"; cat out err; status=1
fi
exit $status
