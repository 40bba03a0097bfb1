#!/bin/bash
# SPDX-License-Identifier: MIT
# The run-time errors of a clause whose probes are all kernel probes
# (here syscall::write:entry, where pointers are kernel addresses): a
# NULL dereference, a load past an alloca() or through a pointer into a
# global D array, and strtok(NULL) raise DTrace's error as they do at a
# user probe, although a kernel read of BPF memory would succeed: the
# error line names the probe, the ERROR clause runs and its exit() ends
# the session.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/sh/lib/fault_lib.sh"
need_dtrace
need_exec /bin/echo

at_write() {
	echo "dtrace: error in dt_clause_0 for probe ID 4 (syscall:vmlinux:write:entry): invalid address ($1) at BPF pc N"
}
W='syscall::write:entry /pid == $target/'

fault "a NULL dereference" "
$W { trace(*(int *)0); }" \
	"ERROR fault 1 at base+0" "$(at_write 0x0)" -c /bin/echo

fault "a load past an alloca()" "
$W { s = (int *)alloca(4); base = (uint64_t)s; trace(s[2]); }" \
	"ERROR fault 1 at base+8" "$(at_write ADDR)" -c /bin/echo

fault "a load through a pointer into a global D array" "
int a[3];
$W { a[1] = 7; p = &a[0]; base = (uint64_t)p; trace(p[1]); }" \
	"ERROR fault 1 at base+4" "$(at_write ADDR)" -c /bin/echo

fault "strtok(NULL) with no string before it" "
$W { trace(strtok(NULL, \",\")); }" \
	"ERROR fault 1 at base+0" "$(at_write 0x0)" -c /bin/echo
exit $status
