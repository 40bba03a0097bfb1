#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 240
# Return probes on functions that read their own return address are
# refused with a warning naming them: setjmp and getcontext would return a
# second time to the uretprobe trampoline after their pending return is
# gone, and the kernel kills the program with SIGILL or resumes it at
# another caller.  Programs that setjmp/longjmp, vfork, swap contexts and
# end threads with pthread_exit (which longjmps to start_thread's setjmp),
# and bash recovering from an arithmetic error (a sigsetjmp), keep their
# output and exit status under pid$target:libc.so.6::return and
# pid$target:a.out::return, and the other return probes still fire.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog return_twice

# trace MODULE MODE: run the program under return probes of MODULE
trace() {
	timeout 60 "$DTRACE" -q \
		-n "pid\$target:$1::return { @[probefunc] = count(); }" \
		-c "$T $2 20" >out 2>err
	rc=$?
	[ $rc = 0 ] || fail_run "dtrace failed ($1, $2)"
	grep -qx "$2 20" out || fail_run "the program's run changed ($1, $2)"
}

# fired FUNC N: FUNC's return probe fired N times
fired() {
	grep -Eq "^ +$1 +$2\$" out || fail_run "$1's return probe did not fire $2 times"
}

refused='return probes not placed: their functions read their own return address'
for mode in setjmp sigsetjmp vfork context threads; do
	trace libc.so.6 $mode
	grep -q "$refused" err || fail_run "no warning on the readers ($mode)"
	for f in _setjmp setjmp __sigsetjmp getcontext swapcontext; do
		grep -q "pid[0-9]*:libc.so.6:$f:return" err ||
			fail_run "$f not named ($mode)"
	done
	case $mode in
	setjmp|sigsetjmp) fired _longjmp_unwind 20 ;;
	vfork) fired __vfork 20 ;;
	context) fired makecontext 1 ;;
	threads) fired pthread_create 20; fired pthread_join 20 ;;
	esac
	trace a.out $mode
	fired main 1
	fired do_$mode 1
	grep -q "$refused" err && fail_run "a function of a.out refused ($mode)"
done

# bash recovers from an arithmetic error through a sigsetjmp; with its
# return probe placed it looped forever (bounded here by timeout).
timeout 60 "$DTRACE" -q -n 'pid$target:libc.so.6::return { @ = count(); }' \
	-c "bash -c 'for i in 1 2 3; do (echo \$((1/0))); done; echo done'" \
	>out 2>err
rc=$?
[ $rc = 0 ] || fail_run "dtrace failed (bash)"
grep -qx done out || fail_run "bash did not go on after its errors"
[ "$(grep -c 'division by 0' err)" = 3 ] || fail_run "bash did not report 3 errors"
exit 0
