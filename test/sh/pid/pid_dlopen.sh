#!/bin/bash
# SPDX-License-Identifier: MIT
# A library loaded with dlopen: traced by -p once loaded, and (-Z) with -c
# when it is loaded while tracing.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
need_cmd cc

printf 'int lib_square(int x) { return x * x; }\n' >libsq.c
cc -shared -fPIC -O1 -o libsq.so libsq.c || exit 1

# already loaded (-w waits after the dlopen)
"$T" -w -l ./libsq.so 3 >/dev/null 2>&1 < <(sleep 3; echo go) & tpid=$!
sleep 0.5
timeout 20 "$DTRACE" -q -p $tpid \
	-n 'pid$target:libsq.so:lib_square:return { printf("%d\n", arg1); }' >out 2>err
rc=$?
if [ "$(cat out)" != "$(printf '0\n1\n4')" ]; then
	echo "-p: exit $rc"; cat out err; status=1
fi

# loaded while tracing
timeout 20 "$DTRACE" -q -Z -c "$T -s 100000 -l ./libsq.so 3" \
	-n 'pid$target:libsq.so:lib_square:return { printf("%d\n", arg1); }' >out 2>err
rc=$?
if [ $rc != 0 ] || ! grep -qx 4 out; then
	echo "-c -Z, library loaded later: exit $rc"; cat out err; status=1
fi
exit $status
