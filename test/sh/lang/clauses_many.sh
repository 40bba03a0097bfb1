#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 90
# 100 and 300 clauses (DTrace's own tests use 100): on one probe, on two
# probes, on two probes at one site (an overlay of two entries); each
# clause runs once per firing, in program order, and nothing runs after
# exit().  Past some 240 clauses a probe's clauses run in a chain of BPF
# programs.  It runs five sessions of up to 300 clauses, some 4 s each on a
# loaded machine (their verification): 90 s.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
T=$B/test/progs/pidtarget
status=0

check() {	# check NAME RC EXPECTED-FILE: out holds what dtrace printed
	if [ "$2" != 0 ] || ! diff -u "$3" out >diff; then
		echo "$1: exit $2"; head -20 diff; echo "stderr:"; head err
		status=1
	fi
}

# clauses N [every-how-many-an-exit]: N BEGIN clauses printing their number
clauses() {
	for i in $(seq "$1"); do
		echo "BEGIN { printf(\"%d\\n\", $i); }"
		[ "$i" = "${2:-0}" ] && echo 'BEGIN { exit(0); }'
	done
	echo 'END { printf("end\n"); }'
}

for n in 100 300; do
	clauses $n >c$n.d
	echo 'BEGIN { exit(0); }' >>c$n.d
	"$DTRACE" -q -s c$n.d >out 2>err
	rc=$?
	{ seq $n; echo end; echo; } >exp
	check "$n clauses" $rc exp
done

# exit() in clause 151 of 301: the 150 after it do not run, END does
clauses 300 150 >cx.d
"$DTRACE" -q -s cx.d >out 2>err
rc=$?
{ seq 150; echo end; echo; } >exp
check "exit in the middle" $rc exp

# 300 clauses over BEGIN and END, interleaved
for i in $(seq 300); do
	if [ $((i % 2)) = 0 ]; then p=BEGIN; else p=END; fi
	echo "$p { printf(\"$p %d\\n\", $i); }"
done >be.d
echo 'BEGIN { exit(0); } BEGIN { printf("after exit\n"); }' >>be.d
"$DTRACE" -q -s be.d >out 2>err
rc=$?
{ seq 2 2 300 | sed 's/^/BEGIN /'; seq 1 2 299 | sed 's/^/END /'
  echo; } >exp
check "BEGIN and END" $rc exp

# two pid probes at one address (alias_fn's entry and its offset 0), 150
# clauses each, two calls: each probe's clauses in order, once per call
if [ -x "$T" ]; then
	for i in $(seq 300); do
		if [ $((i % 2)) = 0 ]; then n=entry; else n=0; fi
		echo "pid\$target:a.out:alias_fn:$n { printf(\"%s %d %d\\n\", probename, arg0, $i); }"
	done >pa.d
	"$DTRACE" -q -c "$T 2" -s pa.d >all 2>err
	rc=$?
	grep -v -e '^done ' -e '^$' all >out
	for call in 0 1; do
		seq 1 2 299 | sed "s/^/0 $call /"
		seq 2 2 300 | sed "s/^/entry $call /"
	done >exp
	check "two probes at one site" $rc exp
	if ! grep -qx 'done 78' all; then
		echo "pidtarget computed otherwise:"; cat all; status=1
	fi
fi
exit $status
