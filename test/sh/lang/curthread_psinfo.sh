#!/bin/bash
# SPDX-License-Identifier: MIT
# curthread (the kernel's struct task_struct *, from BTF) and the built-in
# psinfo.d's curpsinfo, curlwpsinfo and curcpu, at BEGIN (dtrace's own
# thread), at a pid probe and at sched:::off-cpu of napper
# (test/progs/napper.c); a psinfo.d of -L replaces the built-in one.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog napper
[ -r /sys/kernel/btf/vmlinux ] || { echo "no kernel BTF"; exit 77; }
. "$TESTDIR/sh/lib/check_lib.sh"

"$DTRACE" -q -n 'BEGIN {
	printf("%d %d %d %s\n", curthread->pid == tid, curthread->tgid == pid,
	    curthread->real_parent->tgid == ppid, stringof(curthread->comm));
	exit(0);
}' >out 2>err || fail_run "curthread at BEGIN"
check begin "$(cat out)" '1 1 1 dtrace\|'

"$DTRACE" -q -c "$T 1 1" -n 'pid$target::nap:entry {
	printf("thread %d %s\n", curthread->pid == tid, curthread->comm);
	printf("psinfo %d %d %d %d %d %d %s\n", curpsinfo->pr_pid == pid,
	    curpsinfo->pr_ppid == ppid, curpsinfo->pr_uid == uid,
	    curpsinfo->pr_gid == gid, curpsinfo->pr_nlwp,
	    curpsinfo->pr_addr == (uintptr_t)curthread, curpsinfo->pr_fname);
	printf("lwpsinfo %d %d %c %d\n", curlwpsinfo->pr_lwpid == tid,
	    curlwpsinfo->pr_state == SONPROC, curlwpsinfo->pr_sname,
	    curlwpsinfo->pr_onpro == cpu);
	printf("cpu %d\n", curcpu->cpu_id == cpu);
	printf("psargs [%s]\n", curpsinfo->pr_psargs);
}' >out 2>err || fail_run "curpsinfo at a pid probe"
check pid "$(grep -v '^done$' out | grep .)" \
"thread 1 napper\|psinfo 1 1 1 1 1 1 napper\|lwpsinfo 1 1 O 1\|cpu 1\|psargs \[$T 1 1\]\|"

# d_execargs() of the current thread: its arguments joined by spaces, as
# much as strsize holds; of another thread, "" (its memory is not mapped).
# The switch away is taken once nap() was entered (the target may sleep
# before, in its start-up), and the two lines, which two CPUs may give,
# are compared sorted.
"$DTRACE" -q -x strsize=12 -c "$T 1 1" -n '
pid$target::nap:entry { printf("[%s]\n", d_execargs(curthread)); napped = 1; }
sched:::off-cpu /napped && pid == $target && args[0]->tgid != pid/ {
	printf("[%s]\n", d_execargs(args[0])); exit(0);
}' >out 2>err || fail_run "d_execargs"
check d_execargs "$(grep -v '^done$' out | grep . | sort)" "\[${T:0:12}\]\|\[\]\|"
"$DTRACE" -n 'BEGIN { trace(d_execargs("x")); }' >out 2>err
check refused "$(cat err)" \
'dtrace: invalid probe specifier .*: d_execargs\( \) argument #1 is incompatible with prototype:\|	prototype: struct task_struct \*\|	 argument: string\|'

# A thread going to sleep: sched:::sleep in its context, its state set
# (off-cpu may come first, for a preemption).
"$DTRACE" -q -c "$T 1 1" -n '
pid$target::nap:entry { self->in = 1; }
sched:::sleep /self->in/ {
	printf("%d %c %s\n", curlwpsinfo->pr_state == SSLEEP,
	    curlwpsinfo->pr_sname, curpsinfo->pr_fname);
	self->in = 0;
}' >out 2>err || fail_run "curlwpsinfo at sleep"
check sleep "$(grep -v '^done$' out | grep .)" '1 S napper\|'

# A later program of the session is the first to use it.
"$DTRACE" -q -n 'BEGIN { x = 1; }' \
	-n 'BEGIN { printf("%d\n", curpsinfo->pr_pid == pid); exit(0); }' \
	>out 2>err || fail_run "curpsinfo in a second program"
check second "$(cat out)" '1\|'

mkdir lib && echo 'inline int curcpu = 42;' >lib/psinfo.d
"$DTRACE" -q -L lib -n 'BEGIN { printf("%d\n", curcpu); exit(0); }' \
	>out 2>err || fail_run "psinfo.d of -L"
check override "$(cat out)" '42\|'
exit $status
