#!/bin/bash
# SPDX-License-Identifier: MIT
# The fallback for kernels without uprobe_multi links (before 6.6): one
# perf-event uprobe per site, forced here with -x uprobe=perf.  Entry,
# return and offset probes, a pid filter, and the same results as with the
# multi link.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

run() {
	"$DTRACE" -q "$@" -c "$T 3" \
		-n 'pid$target:a.out:add:entry { printf("entry %d %d\n", arg0, arg1); }' \
		-n 'pid$target:a.out:add:return { printf("return %d\n", arg1); }' \
		-n 'pid$target:a.out:add:0 { printf("offset0 %d\n", arg0); }' \
		-n 'END { printf("end\n"); }' 2>err | grep -v -e '^done ' -e '^$'
}

multi=$(run)
perf=$(run -x uprobe=perf)
if [ -z "$multi" ] || [ "$multi" != "$perf" ]; then
	echo "multi link:"; echo "$multi"
	echo "perf fallback:"; echo "$perf"
	cat err
	exit 1
fi
# three calls, each seen by its three probes, then END
[ "$(grep -c . <<<"$perf")" = 10 ] || { echo "$perf"; exit 1; }
exit 0
