#!/bin/bash
# SPDX-License-Identifier: MIT
# -F (and -x flowindent): the heading is "CPU FUNCTION", entries print
# " -> func" and indent, returns unindent and print " <- func", other
# probes "| func:name"; a second clause of the same entry or return
# probe prints "| " instead of a second arrow, as in DTrace; a system
# call's print "->func" and "<-func".
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

# the CPU column varies: cut it, keep the rest of each line
strip_cpu() { grep -v -e '^done ' -e '^$' | sed -E 's/^ *[0-9]+ //; s/ +$//'; }

probes='pid$target:a.out:main:entry, pid$target:a.out:main:return,
	pid$target:a.out:add:entry, pid$target:a.out:add:return,
	pid$target:a.out:sum8:entry, pid$target:a.out:sum8:return'
out=$("$DTRACE" -F -c "$T 1" -n "$probes {}" \
	-n 'pid$target:a.out:add:entry { trace(arg0); }' \
	-n 'pid$target:a.out:sum8:return { trace(arg1); }' 2>err | strip_cpu)
expected="CPU FUNCTION
 -> main
   -> add
    | add:entry                                              0
   <- add
   -> sum8
    | sum8:return
   <- sum8                                                  36
 <- main"
if [ "$out" != "$expected" ]; then
	echo "FAIL -F: got:"; printf '%s\n' "$out"
	echo "expected:"; printf '%s\n' "$expected"; cat err; status=1
fi

# -x flowindent is the same; with -q the lines keep their prefix and
# lose their newline, as DTrace prints them
out=$("$DTRACE" -x flowindent -q -c "$T 1" \
	-n 'pid$target:a.out:add:entry, pid$target:a.out:add:return
	{ printf("[%s]\n", probename); }' 2>err | strip_cpu)
expected="CPU FUNCTION
 -> add                                   [entry]
 <- add                                   [return]"
if [ "$out" != "$expected" ]; then
	echo "FAIL -x flowindent -q: got:"; printf '%s\n' "$out"; cat err
	status=1
fi
# A system call's probes (DTRACE_PROBE_SYSCALL, not the provider's name)
# draw their arrows without the leading space, as DTrace draws them.
S=$B/test/progs/systarget
if [ -x "$S" ] && [ -d /sys/kernel/tracing/events/syscalls ]; then
	out=$("$DTRACE" -F -c "$S" -n 'syscall::getppid:entry,
	    syscall::getppid:return /pid == $target/ {}' 2>err | strip_cpu |
	    grep -v '^done$' | sed -n 1,3p)
	expected="CPU FUNCTION
->getppid
<-getppid"
	if [ "$out" != "$expected" ]; then
		echo "FAIL -F syscall: got:"; printf '%s\n' "$out"; cat err
		status=1
	fi
fi
exit $status
