#!/bin/bash
# SPDX-License-Identifier: MIT
# An exec that fails after the gate served it keeps the process its old
# image, and so its probes: the gate has the providers make the new
# image's probes before the exec completes, but the old image's go only
# at the exec's event, which a failed exec does not have.  The program
# fires, then execs a fresh program with USDT notes whose interpreter is
# missing (execve() fails with ENOENT once the kernel has opened the file,
# past the gate), fires again under its own provider name (exf_keep1234,
# not exf_keep), then execs a fresh program that runs, whose probe is
# traced and after which the old image's probe is gone.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt
status=0

cat >keep.c <<'C'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	DTRACE_PROBE1(exf_keep, tick, 0);
	execl(argv[1], argv[1], (char *)NULL);
	printf("exec failed: %s\n", strerror(errno));
	fflush(stdout);
	DTRACE_PROBE1(exf_keep, tick, 1);
	execl(argv[2], argv[2], (char *)NULL);
	return 1;
}
C
cat >new.c <<'C'
#include <sys/sdt.h>
int main(void)
{
	DTRACE_PROBE(exf_new, hello);
	return 0;
}
C
build_sdt keep keep.c
build_sdt bad new.c -Wl,--dynamic-linker=/nonexistent/ld.so
build_sdt good new.c

"$DTRACE" -Z -q -n '
BEGIN { printf("ready\n"); }
exf_keep*:::tick { printf("%s %s %d\n", probeprov, probename, arg0); }
exf_new*:::hello { printf("%s %s\n", probeprov, probename); }' >out 2>err &
dt=$!
wait_line out ready 200 || { cat err; kill $dt; exit 1; }

# fresh copies: files the gate has not seen, which it holds for the
# providers
cp bad bad.fresh && cp good good.fresh || exit 1
./keep ./bad.fresh ./good.fresh >keep.out
wait_line out "exf_new[0-9]* hello" 200
kill -INT $dt
wait $dt

pid=$(awk '/tick 0/ { sub("exf_keep", "", $1); print $1 }' out)
expected="exf_keep$pid tick 0
exf_keep$pid tick 1
exf_new$pid hello"
[ -n "$pid" ] && [ "$(grep -v -e ready -e '^$' out)" = "$expected" ] ||
	fail "the failed exec's process lost its probes, or the exec that ran
kept them:
$(cat out)
expected:
$expected"
grep -qx 'exec failed: No such file or directory' keep.out ||
	fail "the exec of a program without its interpreter did not fail: $(cat keep.out)"
[ $status = 0 ] || { echo "--- err"; cat err; }
exit $status
