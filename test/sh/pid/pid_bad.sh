#!/bin/bash
# SPDX-License-Identifier: MIT
# Bad input: a pid that does not exist, a description that matches nothing
# (an error unless -Z), a function the named module has not (an error even
# with -Z, as in DTrace), a command that cannot run; nothing left behind.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

check() {	# check NAME WANT-STATUS WANT-STDERR-LINE RC STDERR-FILE
	if [ "$4" != "$2" ] || ! grep -qxF -- "$3" "$5"; then
		echo "$1: exit $4 (want $2), stderr:"; cat "$5"
		echo "wanted: $3"
		status=1
	fi
}

"$DTRACE" -p 999999999 -n 'pid$target:a.out:add:entry' >out 2>err
check "bad -p" 1 "dtrace: failed to grab pid 999999999: No such process" $? err

"$DTRACE" -n 'pid999999999:a.out:add:entry' >out 2>err
rc=$?
if [ $rc != 1 ] || ! grep -q "failed to grab process 999999999$" err; then
	echo "pid999999999 in a description: exit $rc"; cat err; status=1
fi

"$DTRACE" -c /nonexistent/prog -n 'BEGIN { exit(0); }' >out 2>err
check "bad -c" 1 "dtrace: failed to execute /nonexistent/prog: No such file or directory" $? err

"$DTRACE" -c "$T 1" -n 'pid$target::nosuchfunc:entry' >out 2>err
rc=$?
pid=$(sed -n 's/.*probe description pid\([0-9]*\):.*/\1/p' err)
check "no match" 1 "dtrace: invalid probe specifier pid\$target::nosuchfunc:entry: probe description pid$pid::nosuchfunc:entry does not match any probes" $rc err
# the stopped command was killed, not left behind
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
	echo "pid $pid left behind"; status=1
fi

"$DTRACE" -Z -q -c "$T 1" -n 'pid$target::nosuchfunc:entry' >out 2>err
rc=$?
if [ $rc != 0 ] || ! grep -qx "done 37" out; then
	echo "-Z: exit $rc"; cat out err; status=1
fi
"$DTRACE" -Z -q -c "$T 1" -n 'pid$target:a.out:nosuchfunc:entry' >out 2>err
check "-Z, no such function" 1 "dtrace: invalid probe specifier pid\$target:a.out:nosuchfunc:entry: failed to lookup 'nosuchfunc' in module 'a.out'" $? err
exit $status
