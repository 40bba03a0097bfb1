#!/bin/bash
# SPDX-License-Identifier: MIT
# The installed example provider on a kernel tracepoint
# (examples/tracepoint: tp_sched:::process_fork on sched_process_fork) is
# built by its own Makefile against a scratch installation only, and
# traces: the shell that dtrace starts forks a child, whose pid the probe
# gives with the parent's.  A clause that reads registers there, where the
# context is the tracepoint's record, is refused with a message.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc
[ -r /sys/kernel/tracing/events/sched/sched_process_fork/id ] ||
	[ -r /sys/kernel/debug/tracing/events/sched/sched_process_fork/id ] ||
	exit 77

stage_install
EX=$PWD/stage/usr/local/share/dtrace/examples/tracepoint
[ -f "$EX/Makefile" ] || { echo "example not installed"; exit 1; }
cp -r "$EX" ex || exit 1
make -s -C ex DESTDIR="$PWD/stage" PREFIX=/usr/local \
	CFLAGS='-O2 -Wall -Wextra -Werror' >build.log 2>&1 ||
	{ cat build.log; exit 1; }

# sh runs the first true in a child and execs the second itself
out=$("$DTRACE" -q -x plugindir="$PWD/ex" -n '
tp_sched:::process_fork /arg0 == $target/ {
	printf("fork %d %d\n", args[0] == $target, arg1 > 0 && arg1 != arg0);
	exit(0);
}' -c '/bin/sh -c "/bin/true; /bin/true"' 2>err)
if [ "$out" != "fork 1 1" ] || [ -s err ]; then
	echo "process_fork: got '$out'"; cat err; status=1
fi

"$DTRACE" -q -x plugindir="$PWD/ex" \
	-n 'tp_sched:::process_fork { trace(uregs[R_SP]); exit(0); }' \
	-c '/bin/sh -c "/bin/true; /bin/true"' >out 2>err
rc=$?
msg="dtrace: failed to attach to a tracepoint of plugin $PWD/ex/tp_sched.so: a clause reads registers (uregs, ucaller, ustack()...), which a tracepoint does not give"
if [ $rc = 0 ] || ! grep -qxF "$msg" err; then
	echo "uregs at a tracepoint: exit $rc"; cat out err; status=1
fi
exit $status
