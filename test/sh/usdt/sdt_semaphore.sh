#!/bin/bash
# SPDX-License-Identifier: MIT
# A semaphore-guarded <sys/sdt.h> probe (sdt_test:guarded of
# test/progs/sdt_args.c) is enabled through the kernel's uprobe reference
# counter: the guarded code does not run before dtrace attaches, runs while
# it traces (-p), and stops with the counter back to 0 once dtrace is gone,
# after a normal exit and after kill -9.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt
bin=$PWD/sdt_args
build_sdt "$bin" "$TESTDIR/progs/sdt_args.c" -g

# The program's "guarded N semaphore S" line, asked for with SIGUSR1.
state() {
	local before
	before=$(grep -c . prog.out)
	kill -USR1 "$prog"
	for _ in $(seq 100); do
		[ "$(grep -c . prog.out)" -gt "$before" ] && break
		sleep 0.05
	done
	tail -n 1 prog.out
}

for how in INT KILL; do
	: >prog.out
	rm -f ready
	SDT_ARGS_READY=$PWD/ready "$bin" 0 10 >prog.out &
	prog=$!
	# SIGUSR1 kills the program until its handler is in place: wait for
	# the file it creates after its first loop.
	for _ in $(seq 100); do [ -e ready ] && break; sleep 0.05; done
	s=$(state)
	if [ "$s" != "guarded 0 semaphore 0" ]; then
		echo "$how: before tracing: $s"; status=1
	fi
	"$DTRACE" -q -p "$prog" -n 'sdt_test$target:::guarded { printf("fired %d\n", arg1); }' >dt.out 2>dt.err &
	dt=$!
	if ! wait_line dt.out '^fired [0-9]'; then
		echo "$how: the guarded probe never fired:"; cat dt.out dt.err
		status=1
	fi
	s=$(state)
	case $s in
	"guarded "[1-9]*" semaphore 1") ;;
	*) echo "$how: while traced: $s"; status=1 ;;
	esac
	kill -"$how" "$dt"
	wait "$dt" 2>/dev/null
	sleep 0.2
	s1=$(state)
	sleep 0.3
	s2=$(state)
	case $s1 in
	"guarded "[1-9]*" semaphore 0") ;;
	*) echo "$how: after dtrace: $s1"; status=1 ;;
	esac
	if [ "$s1" != "$s2" ]; then
		echo "$how: the guarded code still runs: $s1, then $s2"
		status=1
	fi
	kill "$prog"
	wait "$prog" 2>/dev/null
done
exit $status
