#!/bin/bash
# SPDX-License-Identifier: MIT
# A program of another mount namespace, started from a private tmpfs that
# the exec gate cannot see (dtrace/dt_gate.c marks the filesystems of its
# own namespace), is traced from a few milliseconds after its exec (the
# exec watch, dtrace/dt_exec.c); dtrace names it, so that the firings it
# made before are not lost without a word.  A second run of the same file
# is covered from its first instruction: every firing is seen.
set -u
[ -x "${DTRACE:-}" ] || exit 77
command -v gcc >/dev/null && [ -r /usr/include/x86_64-linux-gnu/sys/sdt.h ] ||
	{ echo "no gcc or <sys/sdt.h>"; exit 77; }
command -v unshare >/dev/null || { echo "no unshare"; exit 77; }
status=0
fail() { echo "$*"; status=1; }

cat >prog.c <<'C'
#include <sys/sdt.h>
#include <unistd.h>
int main(void)
{
	for (int i = 0; i < 11; i++) {
		DTRACE_PROBE1(mns_prog, tick, i);
		usleep(i < 4 ? 0 : 20000);
	}
	return 0;
}
C
gcc -O2 -o prog prog.c || exit 1
mkdir -p private

"$DTRACE" -Z -q -n '
BEGIN { printf("ready\n"); }
mns_prog*:::tick { printf("tick %d %d\n", pid, arg0); }' >out 2>err &
dt=$!
for _ in $(seq 100); do grep -q ready out 2>/dev/null && break; sleep 0.1; done
grep -q ready out || { cat err; kill $dt; exit 1; }

unshare -m sh -c 'mount --make-rprivate / &&
	mount -t tmpfs none "$1/private" && cp "$1/prog" "$1/private/prog" &&
	"$1/private/prog" & echo $! >"$1/pid1"; wait
	"$1/private/prog" & echo $! >"$1/pid2"; wait' sh "$PWD" ||
	fail "cannot run a program in a private mount namespace"
sleep 0.5
kill -INT $dt
wait $dt

pid1=$(cat pid1) pid2=$(cat pid2)
grep -q "pid $pid1 (.*/private/prog) runs in another mount namespace" err ||
	fail "the first run in another mount namespace went without a word"
n2=$(grep -c "^tick $pid2 " out)
[ "$n2" = 11 ] || fail "the second run: $n2 firings of 11 seen"
[ $status = 0 ] || { echo "--- out"; cat out; echo "--- err"; cat err; }
exit $status
