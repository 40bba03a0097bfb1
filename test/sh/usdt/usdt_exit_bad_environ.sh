#!/bin/bash
# SPDX-License-Identifier: MIT
# A program linked with `dtrace -G` exits cleanly after it damaged its own
# environment (environ is the program's to change): the registration code
# read the socket's path once, at load, so its unregistration at exit
# touches no environment.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
cat >bad_env.c <<'C'
#include <stdlib.h>
#include <unistd.h>
#include "prov.h"
extern char **environ;
int main(int argc, char **argv)
{
	static char *damaged[] = { (char *)16, (char *)32, NULL };

	MYAPP_TICK(1);
	if (argc > 1)
		usleep(atoi(argv[1]) * 1000);
	environ = damaged;
	return 0;
}
C
build_app bad_env cc bad_env.c "-O2" "" || exit 1
start_daemon

"$W/bad_env" 500 & pid=$!
wait_for 5 test -f "state/$pid" || fail "bad_env did not register"
wait "$pid"; rc=$?
[ "$rc" = 0 ] || fail "bad_env exited with status $rc"
wait_for 3 test ! -f "state/$pid" || fail "bad_env's registration stayed"
exit $status
