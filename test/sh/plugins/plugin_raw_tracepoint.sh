#!/bin/bash
# SPDX-License-Identifier: MIT
# A plugin built against the installed headers places its probe on a raw
# tracepoint (raw_syscalls' sys_enter): it fires for each of
# bench_syscall's getppid() calls with the call's number in arg0, and
# ustack() there is the calling thread's (DTRACE_PROBE_IN_KERNEL).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc
. "$TESTDIR/sh/lib/check_lib.sh"

stage_install
mkdir -p p
cc -shared -fPIC -O2 -Wall -Wextra -Werror \
	-I"$PWD/stage/usr/local/include" -o p/rawtp.so \
	"$TESTDIR/plugins/rawtp.c" || exit 1
NR=$(printf '#include <sys/syscall.h>\nSYS_getppid\n' | cpp -P - | tail -n 1)

"$DTRACE" -q -x plugindir="$PWD/p" -c "$B/test/progs/bench_syscall 7" -n "
rawtp:::sys_enter /pid == \$target && arg0 == $NR/ { @ = count(); }
rawtp:::sys_enter /pid == \$target && arg0 == $NR && !self->done/ { ustack(); self->done = 1; }
END { printa(\"count %@d\\n\", @); }" >out 2>err
check raw-tracepoint "$(grep -E '^count |bench_syscall`main\+' out | sed 's/^ *//; s/+0x[0-9a-f]*$//')" \
'bench_syscall`main\|count 7\|'
exit $status
