#!/bin/bash
# SPDX-License-Identifier: MIT
# Stacks through the vDSO: a program that spends its time in
# clock_gettime() is profiled; its frames in the vDSO are named
# "[vdso]`__vdso_clock_gettime+0x..." (the kernel's image, which dtrace
# maps too, gives the symbols), and the unwinder goes on through them to
# libc and main with the vDSO's call frame information.  Before, such
# frames were bare addresses followed by garbage.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog vdso_loop

"$DTRACE" -q -n 'profile-997 /pid == $target/ { @[ustack()] = count(); }' \
	-c "$T" >out 2>err
rc=$?
[ $rc = 0 ] || fail_run "dtrace failed"
grep -qx done out || fail_run "the program did not finish"
# a stack from the vDSO's clock_gettime through libc's to main
awk '/^ +\[vdso\]`__vdso_clock_gettime\+0x/ { v = NR }
     /^ +libc\.so\.6`(__)?clock_gettime\+0x/ && v == NR - 1 { l = NR }
     /^ +vdso_loop`main\+0x/ && l == NR - 1 { ok = 1 }
     END { exit !ok }' out ||
	fail_run "no stack from [vdso]\`__vdso_clock_gettime through libc to main"
