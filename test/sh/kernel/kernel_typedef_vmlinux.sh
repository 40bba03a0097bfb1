#!/bin/bash
# SPDX-License-Identifier: MIT
# The kernel's typedefs by their module's name, as DTrace writes them
# (vmlinux`pid_t), from its BTF: in a declaration, a cast (its size and
# sign: (vmlinux`u8)257 is 1, (vmlinux`s8)255 is -1) and sizeof; a name
# that is no typedef of the kernel's is an expression, as DTrace parses
# it.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
[ -r /sys/kernel/btf/vmlinux ] || { echo "no kernel BTF"; exit 77; }

"$DTRACE" -q -n 'vmlinux`pid_t p;
BEGIN {
	p = (vmlinux`pid_t)pid;
	printf("%d %d %d %d %d %d\n", sizeof(vmlinux`u64), sizeof(p),
	    p == pid, (vmlinux`u8)257, (vmlinux`s8)255,
	    sizeof(*(vmlinux`u16 *)0));
	exit(0);
}' >out 2>err || fail_run "dtrace failed"
[ "$(cat out)" = "8 4 1 1 -1 2" ] || fail "got '$(cat out)', want '8 4 1 1 -1 2'"

"$DTRACE" -x errtags -n 'BEGIN { trace((vmlinux`no_such_t)1); }' >out 2>err &&
	fail "a typedef the kernel lacks was accepted"
grep -q '\[D_SYNTAX\] syntax error near "1"' err ||
	fail "unexpected message: $(cat err)"
exit $status
