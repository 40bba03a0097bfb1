#!/bin/bash
# SPDX-License-Identifier: MIT
# A `$target` process that execs another program built with -G: the
# probes of the old image (its file, which the new one does not map) fire
# no more, and those of the new image are made as the new program
# registers (its constructor waits for the session, subscribed to
# dtprobed), so the new image's first firing is seen, under the target's
# pid, its module the new file.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" &&
build_app app2 cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1
start_daemon

"$DTRACE" -q -c "$W/app 2 0 exec $W/app2 2 0" \
	-n 'myapp$target:::tick { printf("%s %s %d\n", probeprov == strjoin("myapp", lltostr($target)) ? "own" : probeprov, probemod, args[0]); }' \
	>out 2>err
rc=$?
expected='own app 0
own app 1
own app2 0
own app2 1'
[ $rc = 0 ] && [ "$(grep -v -e '^$' -e '^enabled$' out)" = "$expected" ] ||
	fail_run "exec into another registered program" "$expected"
exit $status
