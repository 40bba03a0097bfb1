#!/bin/bash
# SPDX-License-Identifier: MIT
# Debian's python3.11 carries <sys/sdt.h> probes: python$target:::function-entry
# (arg0 file, arg1 function, arg2 line) traced with -c shows the script's
# calls.  Python 3.11 reaches its function-entry probe only on its tracing
# path, which it takes while its line probe's semaphore is set, so the
# script enables python$target:::line too (as users of these probes do).
# Also dtrace -l -n 'python$target:::' and the argument types of -l -v.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
py=/usr/bin/python3.11
[ -x $py ] || { echo "no $py"; exit 77; }

cat >calls.py <<'PY'
def dt_alpha(n):
    return n + 1


def dt_beta(n):
    return n * 2


list(map(dt_alpha, range(3)))
sorted([3, 1, 2], key=dt_beta)
PY

"$DTRACE" -q -n 'python$target:::line { }' \
	-n 'python$target:::function-entry
	    /copyinstr(arg1) == "dt_alpha" || copyinstr(arg1) == "dt_beta"/
	    { printf("%s %s:%d\n", copyinstr(arg1), copyinstr(arg0), arg2); }' \
	-c "$py $PWD/calls.py" >out 2>err
expected="dt_alpha $PWD/calls.py:1
dt_alpha $PWD/calls.py:1
dt_alpha $PWD/calls.py:1
dt_beta $PWD/calls.py:5
dt_beta $PWD/calls.py:5
dt_beta $PWD/calls.py:5"
if [ "$(sed '/^$/d' out)" != "$expected" ]; then
	echo "function-entry printed:"; cat out err
	echo "expected:"; echo "$expected"
	status=1
fi

"$DTRACE" -l -n 'python$target:::' -c $py >list 2>err </dev/null
for p in function-entry function-return gc-start gc-done line; do
	if ! grep -Eq "^ *[0-9]+ +python[0-9]+ +python3\.11 +.* $p\$" list; then
		echo "dtrace -l: no python<pid>:python3.11::$p"; cat list err
		status=1
	fi
done

"$DTRACE" -l -v -n 'python$target:::function-entry' -c $py >listv 2>err </dev/null
if ! grep -Eq 'args\[2\]: int$' listv ||
   [ "$(grep -c 'args\[[01]\]: ' listv)" != 2 ]; then
	echo "dtrace -l -v: argument types:"; cat listv err
	status=1
fi
exit $status
