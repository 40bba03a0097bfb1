#!/bin/bash
# SPDX-License-Identifier: MIT
# The exec watch's programs are the session's (dtrace/gate/dt_exec.c, built
# with the assembler and loaded through dtrace/bpf/dt_bpf.c): -S shows them,
# their maps named (dt_exec, the ring buffer; dt_gated, the gate's marks),
# and the watch still sees an exec while the session's event loop
# (dtrace/cmd/dt_session.c) runs.  ustack() turns the watch on (the
# loader's events say when a process maps a library).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

DTRACE_EXEC_DEBUG=1 timeout 30 "$DTRACE" -S -q \
	-n 'BEGIN { printf("target %d\n", $target); ustack(); }' \
	-c "sh -c 'sleep 0.5; exec /bin/true'" >out 2>err
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: dtrace exited $rc"; cat err; status=1; }

# One program for execs, one for the loader's hook (its calls or itself).
grep -q '^exec watch program, exec tracepoint ([0-9]* insns):$' err ||
	{ fail "-S does not show the exec tracepoint's program"; }
grep -Eq "^exec watch program, (calls of the )?loader's hook \([0-9]+ insns\):$" err ||
	{ fail "-S does not show the loader hook's program"; }
for m in dt_exec dt_gated; do
	[ "$(grep -c "= map\[$m\]\$" err)" -ge 2 ] ||
		{ fail "the programs do not load map $m by name"; }
done
grep -q 'call bpf_ringbuf_output$' err ||
	{ fail "no ring buffer output in the programs shown"; }

# The target's own exec of /bin/true, half a second into tracing, is an
# event the exec watch hands out.
pid=$(sed -n 's/^target \([0-9]*\)$/\1/p' out)
[ -n "$pid" ] || { echo "FAIL: no target pid printed"; cat out; status=1; }
grep -q "^dtrace: exec watch: pid $pid exec at " err ||
	{ fail "the exec of pid $pid was not seen"; }

[ $status -eq 0 ] || { echo "stderr:"; cat err; }
exit $status
