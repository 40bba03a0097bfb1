#!/bin/bash
# SPDX-License-Identifier: MIT
# Nothing is lost silently: with a tiny output buffer, records that find no
# room are counted in BPF and reported as DTrace does, "dtrace: N drops on
# CPU C", and the records that were kept are whole.
#
# Each firing of add() writes three records of some 1.5k (a string member
# takes strsize), more than the 4k buffer holds: every firing drops at
# least one, whatever the machine's load, and the first firing, into an
# empty buffer, keeps two.  The consumer reads every millisecond, so that
# many are kept too.  300 firings are enough: the test takes under a
# second, where 200,000 firings of one small record took several seconds
# of uprobe traps (tens under load) to drop a few hundred.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

firings=300
clause='pid$target:a.out:add:entry { printf("%d %d %s\n", arg0, arg1, probefunc); }'
"$DTRACE" -q -x bufsize=4k -x strsize=1500 -x switchrate=1ms \
	-c "$T -s 1000 $firings" -n "$clause" -n "$clause" -n "$clause" \
	>out 2>err
rc=$?
if [ $rc != 0 ] || ! grep -Eq '^dtrace: [0-9]+ drops? on CPU [0-9]+$' err; then
	echo "exit $rc; no drop report in stderr:"; head -20 err
	exit 1
fi
# every line printed is a whole record: "i i+1 add"
bad=$(grep -v -e '^done ' -e '^$' out | awk '$2 != $1 + 1 || $3 != "add"' |
      head -3)
if [ -n "$bad" ]; then
	echo "damaged records:"; echo "$bad"
	exit 1
fi
# drops plus records kept account for every record, and some were kept
kept=$(grep -c -E '^[0-9]+ [0-9]+ add$' out)
dropped=$(grep -Eo '^dtrace: [0-9]+ drop' err | awk '{ s += $2 } END { print s + 0 }')
if [ "$kept" -lt 2 ] || [ $((kept + dropped)) != $((3 * firings)) ]; then
	echo "kept $kept + dropped $dropped != 3 x $firings records"
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
