#!/bin/bash
# SPDX-License-Identifier: MIT
# An underlying probe first placed for one process, then, while tracing,
# for every process (a plugin's probe, test/plugins/widen.c) runs its
# program once per hit in that process: the process's own link goes when
# the link for every process is made.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc
prog=$B/test/progs/uprobe_target

stage_install
mkdir -p p
cc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$PWD/stage/usr/local/include" \
	-o p/widen.so "$TESTDIR/plugins/widen.c" || exit 1

# target_fn's file offset: its address in the text segment, mapped at
# its own file offset.
off=0x$(nm "$prog" | awk '$3 == "target_fn" { print $1 }')
mkfifo in
"$prog" 3 <in >target.out & target=$!
exec 3>in
"$DTRACE" -q -x plugindir="$PWD/p" -x widen.path="$prog" \
	-x widen.offset="$off" -x widen.pid=$target -n '
BEGIN { printf("ready\n"); }
widen:::hit /pid == '$target'/ { printf("hit %d\n", arg0); }' >out 2>err &
dt=$!
for _ in $(seq 200); do
	grep -q ready out && break
	sleep 0.05
done
sleep 0.5			# a few polls: the probe is widened
echo >&3
for _ in $(seq 200); do
	grep -q done target.out && break
	sleep 0.05
done
sleep 0.3
kill -INT $dt; wait $dt
exec 3>&-
wait $target

if [ "$(grep -c '^hit' out)" != 3 ]; then
	echo "expected hit 1, 2 and 3 once each:"; cat out err; status=1
fi
exit $status
