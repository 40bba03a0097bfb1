#!/bin/bash
# SPDX-License-Identifier: MIT
# A session that traces a USDT probe for every process (sdt_test*:::)
# says once, at start, when no dtprobed answers: what a program that
# starts while tracing loses (its first firings are not named with its
# pid) and how to start the daemon.  Nothing is said for a description of
# one process (sdt_test$target), for one that matches no USDT probe
# (*:::BEGIN), nor when a dtprobed answers.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/daemon_lib.sh"
need_prog sdt_args
said='^dtrace: usdt: no dtprobed answers at .*/sock: a program that starts while tracing fires as its provider without its pid \(myapp, not myapp1234\) until dtrace sees it; start dtprobed \(systemctl start dtprobed\) to have it named from its first firing$'

# trace DESC: one session on DESC around sdt_args, its stderr in err.
trace() {
	"$DTRACE" -q -n "$1:::many { exit(0); }" -c "$T 1" >out 2>err ||
		{ cat err; fail "$1: dtrace failed"; }
}

trace 'sdt_test*'
[ "$(grep -cE "$said" err)" = 1 ] || { cat err; fail "every process, no dtprobed: not said once"; }
trace 'sdt_test$target'
! grep -q dtprobed err || { cat err; fail "one process: said"; }
"$DTRACE" -q -n '*:::BEGIN { exit(0); }' >out 2>err
! grep -q dtprobed err || { cat err; fail "no USDT probe: said"; }
start_daemon
trace 'sdt_test*'
! grep -q 'no dtprobed' err || { cat err; fail "dtprobed answers: said"; }
exit $status
