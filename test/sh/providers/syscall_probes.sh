#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 90
# The syscall provider on a program whose calls are known (systarget):
# entry arguments, the return value in arg0 and arg1, errno at a failed
# return (0 at a successful one and outside system calls), probefunc the
# call's name, ustack() of the calling thread, globs, syscall:::entry,
# and -l; on the per-call tracepoints and on raw_syscalls (-x
# syscall.mode=percall, =raw, and by default: syscall:::entry is raw, a
# description of a few calls per call, as dtrace -S shows).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog systarget
[ -d /sys/kernel/tracing/events/syscalls ] ||
	[ -d /sys/kernel/debug/tracing/events/syscalls ] || exit 77
. "$TESTDIR/sh/lib/check_lib.sh"

for mode in "" percall raw; do
opt=${mode:+-x syscall.mode=$mode}
# Arguments, return values and errno of the known calls.
"$DTRACE" $opt -q -c "$T" -n '
BEGIN { printf("BEGIN errno %d\n", errno); }
syscall::read:entry /pid == $target && arg2 == 77/ {
	printf("%s:%s:%s:%s fd>2 %d count %d\n", probeprov, probemod,
	    probefunc, probename, arg0 > 2, args[2]);
	self->r = 1;
}
syscall::read:return /self->r/ {
	printf("%s:%s %d %d errno %d\n", probefunc, probename, arg0, arg1,
	    errno);
	self->r = 0;
}
syscall::openat:entry /pid == $target && copyinstr(arg1) == "/nonexistent/systarget"/ {
	printf("%s %s\n", probefunc, copyinstr(args[1]));
	self->o = 1;
}
syscall::openat:return /self->o/ {
	printf("%s:%s %d %d errno %d\n", probefunc, probename, arg0, arg1,
	    errno);
	self->o = 0;
}' >out 2>err
check "entry-return $mode" "$(grep -v '^done$' out | grep -v '^$')" \
'BEGIN errno 0\|syscall:vmlinux:read:entry fd>2 1 count 77\|read:return 77 77 errno 0\|openat /nonexistent/systarget\|openat:return -2 -2 errno 2\|'

# ustack() and uregs[] at a system call are the calling thread's: the
# read comes from main() of systarget.
"$DTRACE" $opt -q -c "$T" -n 'syscall::read:entry /pid == $target && arg2 == 77/ {
	ustack(); printf("sp %d\n", uregs[R_SP] != 0); }' >out 2>err
check "ustack $mode" "$(grep -E 'systarget`main\+|^sp ' out | sed 's/^ *//; s/+0x[0-9a-f]*$//')" \
'systarget`main\|sp 1\|'

# syscall:::entry covers every call: probefunc names them.
"$DTRACE" $opt -S -q -c "$T" -n 'syscall:::entry /pid == $target/ { @[probefunc] = count(); }
END { printa("%s %@d\n", @); }' >out 2>err
check "every-entry $mode" "$(grep -E '^(getppid|read|openat|exit_group) ' out | sort)" \
'exit_group 1\|getppid 3\|openat [0-9]+\|read [0-9]+\|'
# raw_syscalls:sys_enter's program is kind 8, past the per-call ones
# (which still serve the calls newer than the plugin's table of numbers)
check "every-entry-raw $mode" "$(grep -c '^syscall program, kind 8 ' err)" \
"$([ "$mode" = percall ] && echo 0 || echo 1)\\|"
done
"$DTRACE" -x syscall.mode=sometimes -n 'syscall::read:entry' >out 2>err
check bad-mode "$(cat err)" \
'dtrace: syscall: -x syscall.mode=sometimes: expected raw or percall\|'


# A glob in the function name, and the probe line of the default action.
"$DTRACE" -c "$T" -n 'syscall::getpp*:return /pid == $target/' >out 2>err
check glob-default "$(grep -v '^done$' out)" \
'CPU     ID                    FUNCTION:NAME\|( +[0-9]+ +[0-9]+ +getppid:return *\|){3}'

# Listing.
"$DTRACE" -l -n 'syscall::read:' >out 2>err
check list "$(sed 's/  */ /g' out)" \
' ID PROVIDER MODULE FUNCTION NAME\| [0-9]+ syscall vmlinux read entry\| [0-9]+ syscall vmlinux read return\|'
"$DTRACE" -lv -n 'syscall::read:entry' >out 2>err
check list-types "$(grep 'args\[' out | sed 's/^[[:space:]]*//')" \
'args\[0\]: unsigned int\|args\[1\]: char \*\|args\[2\]: unsigned long\|'
exit $status
