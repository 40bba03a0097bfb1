#!/bin/bash
# SPDX-License-Identifier: MIT
# host->tp_field() finds a tracepoint's __data_loc field by its name
# (sched_process_exec's filename, "__data_loc char[] filename"): a plugin
# built against the installed headers reads its offset and length from
# the record, and the exec of /bin/true gives 10 bytes with the NUL.
# Before, the field was not found ("which has none").  A clause that
# reads registers there (uregs, ustack()) is refused in words.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc
fmt=/sys/kernel/tracing/events/sched/sched_process_exec/format
[ -r "$fmt" ] || fmt=/sys/kernel/debug/tracing/events/sched/sched_process_exec/format
[ -r "$fmt" ] || exit 77

stage_install
mkdir -p p
cc -shared -fPIC -O2 -Wall -Wextra -Werror \
	-I"$PWD/stage/usr/local/include" -o p/tpexec.so \
	"$TESTDIR/plugins/tpexec.c" || exit 1

"$DTRACE" -q -x plugindir="$PWD/p" -n '
tpexec:::exec /pid == $target/ { printf("len %d off %d\n", arg1, arg0 > 0); }' \
	-c "/bin/sh -c 'exec /bin/true'" >out 2>err
rc=$?
if [ $rc != 0 ] || [ "$(grep -v '^$' out)" != "len 10 off 1" ]; then
	echo "exit $rc; stdout:"; cat out; echo "stderr:"; cat err
	exit 1
fi

# A clause that reads registers on a tracepoint's probe is refused in
# words, for ustack() as for uregs (not with the verifier's dump).
for clause in 'ustack();' 'trace(uregs[R_PC]);'; do
	"$DTRACE" -q -x plugindir="$PWD/p" -n "tpexec:::exec { $clause }" \
		-c /bin/true >out 2>err && fail "$clause: accepted"
	grep -q "reads registers (uregs, ucaller, ustack()...), which" err &&
	! grep -q 'bpf_context' err || { cat err; fail "$clause: not refused in words"; }
done
exit $status
