#!/bin/bash
# SPDX-License-Identifier: MIT
# fbt, syscall and pid probes in one script, on one program (systarget's
# read of 77 bytes): the pid probe on main, the system call's entry, the
# kernel function under it (and the thread's ustack() there) and the
# call's return, in that order; the system call on its per-call
# tracepoints and on raw_syscalls (-x syscall.mode=percall, =raw).
set -u
. "$(dirname "$0")/check_lib.sh"
status=0
for mode in percall raw; do
"$DTRACE" -x syscall.mode=$mode -q -c "$PROGS/systarget" -n '
pid$target:a.out:main:entry { printf("%s %s\n", probeprov == strjoin("pid", lltostr(pid)) ? "pid" : probeprov, probefunc); }
syscall::read:entry /pid == $target && arg2 == 77/ { printf("syscall %s %d\n", probefunc, arg2); self->r = 1; }
fbt::vfs_read:entry /self->r/ { printf("fbt %s %d\n", probefunc, args[2]); ustack(); }
syscall::read:return /self->r/ { printf("syscall %s:%s %d errno %d\n", probefunc, probename, arg0, errno); self->r = 0; }
' >out 2>err
check "one-script $mode" "$(grep -v '^done$' out | grep . | grep -v '^ ')" \
'pid main\|syscall read 77\|fbt vfs_read 77\|syscall read:return 77 errno 0\|'
# ustack() in the kernel function: the thread's user stack, from main()
grep -Eq '^ +systarget`main\+0x' out || { echo "no main in ustack() ($mode):"; cat out err; status=1; }
done
exit $status
