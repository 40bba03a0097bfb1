#!/bin/bash
# SPDX-License-Identifier: MIT
# Nothing is lost silently: with a tiny output buffer and a fast probe,
# records that find no room are counted in BPF and reported as DTrace does,
# "dtrace: N drops on CPU C", and the records that were kept are whole.
set -u
[ -x "$DTRACE" ] || exit 77
T=$B/test/progs/pidtarget
[ -x "$T" ] || exit 77

"$DTRACE" -q -x bufsize=4k -x switchrate=1s -c "$T 200000" \
	-n 'pid$target:a.out:add:entry { printf("%d %d\n", arg0, arg1); }' \
	>out 2>err
rc=$?
if [ $rc != 0 ] || ! grep -Eq '^dtrace: [0-9]+ drops? on CPU [0-9]+$' err; then
	echo "exit $rc; no drop report in stderr:"; head -20 err
	exit 1
fi
# every line printed is a whole record: "i i+1"
bad=$(grep -v -e '^done ' -e '^$' out | awk '$2 != $1 + 1' | head -3)
if [ -n "$bad" ]; then
	echo "damaged records:"; echo "$bad"
	exit 1
fi
# drops plus records kept account for every firing
kept=$(grep -c -E '^[0-9]+ [0-9]+$' out)
dropped=$(grep -Eo '^dtrace: [0-9]+ drop' err | awk '{ s += $2 } END { print s + 0 }')
if [ $((kept + dropped)) != 200000 ]; then
	echo "kept $kept + dropped $dropped != 200000 firings"
	exit 1
fi

# a full aggregation (-x aggsize) drops new keys, and says how many
"$DTRACE" -q -x aggsize=4k -c "$T 2000" \
	-n 'pid$target:a.out:add:entry { @[arg0] = count(); }' >out 2>err
rc=$?
if [ $rc != 0 ] || ! grep -Eq '^dtrace: [0-9]+ aggregation drops? on CPU [0-9]+$' err; then
	echo "exit $rc; no aggregation drop report:"; head -20 err
	exit 1
fi
kept=$(grep -c -E '^ +[0-9]+ +1$' out)
dropped=$(grep -Eo '^dtrace: [0-9]+ aggregation' err | awk '{ s += $2 } END { print s + 0 }')
if [ $((kept + dropped)) != 2000 ]; then
	echo "kept $kept keys + dropped $dropped != 2000"
	exit 1
fi
exit 0
