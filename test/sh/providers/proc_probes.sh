#!/bin/bash
# SPDX-License-Identifier: MIT
# The proc provider on processes whose lives are known: systarget (a
# fork whose child exits with 3, a thread, a signal to itself, a failed
# exec) and a shell that runs /bin/true and kills a sleep; its psinfo_t *
# and lwpsinfo_t * arguments, as DTrace passes them.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog systarget
[ -d /sys/kernel/tracing/events/task ] || exit 77
. "$TESTDIR/sh/lib/check_lib.sh"

"$DTRACE" -q -c "$T" -n '
proc:::create /pid == $target/ { child = args[0]->pr_pid; printf("create %d\n", args[0]->pr_ppid == pid); }
proc:::exit /child && pid == child/ { printf("child exit %d\n", args[0]); }
proc:::lwp-create /pid == $target/ { printf("lwp-create %d\n", args[1]->pr_pid == pid && args[0]->pr_lwpid != pid); }
proc:::lwp-exit /pid == $target && tid != pid/ { printf("lwp-exit\n"); }
proc:::signal-send /pid == $target && args[2] == 10/ { printf("signal-send %d %d %s\n", args[0]->pr_lwpid == tid, args[2], args[1]->pr_fname); }
proc:::exec /pid == $target/ { printf("exec %s\n", args[0]); }
proc:::exec-failure /pid == $target/ { printf("exec-failure %d\n", args[0]); }
proc:::exit /pid == $target/ { printf("exit %d\n", args[0]); }' >out 2>err
# Sorted: a joined thread's lwp-exit may come after its process's next
# events (on 6.1 the kernel lets pthread_join() return before the
# thread's sched_process_exit).
check systarget "$(grep -v '^done$' out | grep . | sort)" \
'child exit 1\|create 1\|exec /nonexistent/systarget\|exec-failure 2\|exit 1\|lwp-create 1\|lwp-exit\|signal-send 1 10 systarget\|'

"$DTRACE" -q -c "/bin/sh -c '/bin/true; /bin/sh -c \"kill -9 \\\$\\\$\"; exit 0'" -n '
proc:::exec /ppid == $target/ { printf("exec %s\n", args[0]); }
proc:::exec-success /ppid == $target/ { printf("exec-success %s\n", execname); }
proc:::exit /ppid == $target/ { printf("exit %s %d\n", execname, args[0]); }' >out 2>err
check shell "$(grep . out | sort)" \
'exec /bin/sh\|exec /bin/true\|exec-success sh\|exec-success true\|exit sh 2\|exit true 1\|'

# A program that reads no psinfo.d sees the tasks themselves.
"$DTRACE" -q -c "$T" -n '
proc:::create /pid == $target/ { printf("create %d\n", args[0]->real_parent->tgid == pid); }
proc:::signal-send /pid == $target && args[2] == 10/ { printf("signal-send %d\n", args[1]->tgid == pid); }' >out 2>err
check tasks "$(grep -v '^done$' out | grep .)" 'create 1\|signal-send 1\|'

"$DTRACE" -l -P proc >out 2>err
check list "$(awk 'NR > 1 { print $2, $3, $4 }' out)" \
'proc vmlinux exec\|proc vmlinux exec-success\|proc vmlinux exec-failure\|proc vmlinux create\|proc vmlinux lwp-create\|proc vmlinux exit\|proc vmlinux lwp-exit\|proc vmlinux signal-send\|'
exit $status
