#!/bin/bash
# SPDX-License-Identifier: MIT
# A VEX-encoded instruction at a function's entry is refused with a warning
# naming the probe; the program computes what it computes untraced.  A glob
# over libc's entries skips its AVX functions with one summary line and
# never harms the program.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
grep -qw avx /proc/cpuinfo || exit 77

"$DTRACE" -q -c "$T -v 3" -n 'pid$target:a.out:vex_fn:entry { printf("fired\n"); }' \
	-n 'pid$target:a.out:add:entry {}' >out 2>err
rc=$?
if ! grep -Eqx 'dtrace: probe pid[0-9]+:a.out:vex_fn:entry skipped: its instruction \(vpxor\) is VEX-encoded, which uprobes execute wrongly' err ||
   grep -q fired out || ! grep -qx 'done 144' out; then
	echo "vex_fn: exit $rc"; cat out err; status=1
fi

"$DTRACE" -q -c "$T -v -s 100 20" -n 'pid$target:libc.so.6::entry {}' >out 2>err
rc=$?
if [ $rc != 0 ] || ! grep -qx 'done 1640' out; then
	echo "libc entries: exit $rc"; cat out err; status=1
fi
if [ "$(grep -c 'skipped' err)" -gt 1 ]; then
	echo "libc entries: more than one line about skipped probes:"
	cat err; status=1
fi
exit $status
