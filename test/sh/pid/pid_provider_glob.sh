#!/bin/bash
# SPDX-License-Identifier: MIT
# A glob over pid providers (pid*) matches, as in DTrace, only the pid
# providers made already: by a description naming the process before it
# (pid$target, pid1234), never a process of its own; one that matches
# nothing is DTrace's "does not match any probes", unless -Z.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

"$DTRACE" -q -c "$T 1" -n 'pid*:::entry { }' >out 2>err
rc=$?
want='dtrace: invalid probe specifier pid*:::entry { }: probe description pid*:::entry does not match any probes'
[ $rc = 1 ] && [ "$(cat err)" = "$want" ] || fail_run "pid* alone" "$want"

"$DTRACE" -Z -q -c "$T 1" -n 'pid*:::entry { }' >out 2>err
rc=$?
[ $rc = 0 ] && grep -qx 'done 37' out || fail_run "pid* alone with -Z"

# after pid$target: its provider, and only the functions the glob names
"$DTRACE" -q -c "$T 2" -n 'pid$target:a.out:add:entry { }' \
	-n 'pid*:a.out:sum*:entry { printf("%s %s\n", probeprov == strjoin("pid", lltostr(pid)) ? "own" : probeprov, probefunc); }' \
	>out 2>err
rc=$?
[ $rc = 0 ] && [ "$(grep -v -e '^done' -e '^$' out)" = 'own sum8
own sum8' ] || fail_run "pid* after pid\$target" 'own sum8 (twice)'

# before it: nothing made yet
"$DTRACE" -q -c "$T 1" -n 'pid*:a.out:sum8:entry { }' \
	-n 'pid$target:a.out:add:entry { }' >out 2>err
rc=$?
[ $rc = 1 ] && grep -q 'probe description pid\*:a.out:sum8:entry does not match any probes' err ||
	fail_run "pid* before pid\$target"
exit $status
