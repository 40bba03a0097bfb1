#!/bin/bash
# SPDX-License-Identifier: MIT
# dtrace -G links an object whose only uses of its provider are
# PROVIDER_PROBE_ENABLED() (references to the probes' semaphores, no probe
# site), as DTrace does; the program links and runs, the test reading 0.
# An object that uses no declared probe at all is still refused.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc
INC=$TESTDIR/../include
status=0
cat >p.d <<'D'
provider onlyen { probe tick(int); probe tock(); };
D
cat >a.c <<'C'
#include <stdio.h>
#include "p.h"
int main(void)
{
	printf("enabled %d\n", ONLYEN_TICK_ENABLED() ? 1 : 0);
	return 0;
}
C
printf 'int f(void) { return 1; }\n' >none.c
"$DTRACE" -h -s p.d -o p.h && cc -O2 -I"$INC" -I. -c -o a.o a.c &&
	cc -O2 -c -o none.o none.c || exit 1
"$DTRACE" -G -s p.d -o p.o a.o 2>err ||
	{ echo "-G refused the object:"; cat err; status=1; }
if [ -e p.o ]; then
	cc -o a a.o p.o -ldl || { echo "link failed"; status=1; }
	[ "$(./a 2>&1)" = "enabled 0" ] || { echo "run: $(./a 2>&1)"; status=1; }
fi
if "$DTRACE" -G -s p.d -o n.o none.o 2>err ||
   ! grep -q "no probe sites of provider onlyen found in none.o" err; then
	echo "an object without uses was not refused:"; cat err; status=1
fi
exit $status
