#!/bin/bash
# SPDX-License-Identifier: MIT
# A program of another mount namespace, started from a private tmpfs that
# the exec gate does not mark (dtrace/gate/dt_gate.c marks the filesystems of
# its own namespace), is covered from its first instruction all the same:
# the gate holds it when the kernel opens the loader (on a marked
# filesystem) and finds the program through /proc/PID (WD_INTERP).  Every
# firing of its first run and of a second one is seen, and nothing is
# reported.  A static program there, which opens no loader, is traced from
# a few milliseconds after its exec (the exec watch, dtrace/gate/dt_exec.c), and
# dtrace names it, so that the firings it made before are not lost without
# a word.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt
command -v unshare >/dev/null || { echo "no unshare"; exit 77; }

cat >prog.c <<'C'
#include <sys/sdt.h>
#include <unistd.h>
int main(void)
{
	for (int i = 0; i < 11; i++) {
		DTRACE_PROBE1(mns_prog, tick, i);
		usleep(i < 4 ? 0 : PAUSE_US);
	}
	return 0;
}
C
gcc -O2 -DPAUSE_US=20000 -o prog prog.c || exit 1
# the static one lives long enough for the exec watch to reach it
static=0
gcc -static -O2 -DPAUSE_US=200000 -o sprog prog.c 2>/dev/null && static=1
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
	"$1/private/prog" & echo $! >"$1/pid2"; wait
	if [ $2 = 1 ]; then cp "$1/sprog" "$1/private/sprog" &&
		"$1/private/sprog" & echo $! >"$1/pid3"; wait; fi' sh "$PWD" $static ||
	fail "cannot run a program in a private mount namespace"
sleep 0.5
kill -INT $dt
wait $dt

pid1=$(cat pid1) pid2=$(cat pid2)
n1=$(grep -c "^tick $pid1 " out)
[ "$n1" = 11 ] || fail "the first run: $n1 firings of 11 seen"
n2=$(grep -c "^tick $pid2 " out)
[ "$n2" = 11 ] || fail "the second run: $n2 firings of 11 seen"
grep "/private/prog)" err && fail "a covered run was reported"
if [ $static = 1 ]; then
	pid3=$(cat pid3)
	grep -q "pid $pid3 (.*/private/sprog) runs in another mount namespace" err ||
		fail "the static program in another mount namespace went without a word"
	grep -qx "tick $pid3 10" out ||
		fail "the static program in another mount namespace was not traced"
else
	echo "no static libc: the static case is skipped"
fi
[ $status = 0 ] || { echo "--- out"; cat out; echo "--- err"; cat err; }
exit $status
