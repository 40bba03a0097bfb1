#!/bin/bash
# SPDX-License-Identifier: MIT
# Clauses whose predicates read only arguments (arg0 < 0 and the like) are
# tested before the firing touches the session's state: each clause still
# runs exactly when its own predicate holds, a fault in one that ran is
# reported, exit() still ends the session at once, and a clause with
# another predicate beside them keeps the general path.  A lone clause's
# prefilter runs inline, reading the arguments where they are.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

# add(i, i + 1) for i = 0 .. 7: two clauses filtered by arguments, the
# first of them faulting when it runs.
"$DTRACE" -q -c "$T 8" \
	-n 'pid$target:a.out:add:entry /arg0 == 2 || arg1 == 7/ { printf("a %d %d\n", arg0, arg1); }' \
	-n 'pid$target:a.out:add:entry /(arg0 & 1) == 0 && arg1 % 3 != 0/ { @even = count(); }' \
	-n 'pid$target:a.out:add:entry /arg0 == 4/ { trace(*(int *)arg0); }' \
	-n 'END { printa("even %@d\n", @even); }' >out 2>err
rc=$?
expected='a 2 3
a 6 7
even 3'
actual=$(grep -v -e '^done ' -e '^$' out)
[ $rc = 0 ] && [ "$actual" = "$expected" ] || fail_run "arguments" "$expected"
experr='dtrace: error in dt_clause_N for probe ID N (pidN:a.out:add:entry): invalid address (0x4) at BPF pc N'
acterr=$(grep '^dtrace: error' err | sed -E 's/ID [0-9]+/ID N/g; s/dt_clause_[0-9]+/dt_clause_N/; s/pid[0-9]+/pidN/; s/pc [0-9]+/pc N/')
[ "$acterr" = "$experr" ] || fail_run "fault" "$experr"

# One clause: its prefilter runs inline at the program's entry and reads
# the arguments from the registers (the listing's first lines, up to the
# first exit, read di and si, call nothing, and jump from the predicate's
# tests to the firing's end or its full path, without testing a returned
# r0), in caller-saved registers only: the full path is a function of its
# own, and the entry saves no register.  The same firings run with the
# full path in the entry's function, with the prefilter as a call, with
# its copy of the arguments kept, and without it.
for env in X=1 DTRACE_BENCH_NOSPLIT=1 DTRACE_BENCH_NOPREINLINE=1 \
	DTRACE_BENCH_NOPREOPT=1 DTRACE_BENCH_NOPREFILTER=1; do
	env $env "$DTRACE" -q -S -c "$T 8" \
		-n 'pid$target:a.out:add:entry /arg1 - arg0 == 1 && (arg0 == 3 || arg1 == 6)/ { printf("b %d %d\n", arg0, arg1); }' \
		>out 2>err
	rc=$?
	expected='b 3 4
b 5 6'
	actual=$(grep '^b ' out)
	[ $rc = 0 ] && [ "$actual" = "$expected" ] || fail_run "one clause, $env" "$expected"
	entry=$(sed -n '/^pid program/,/exit$/p' err)
	inline=no
	if grep -q 'r1 + 112' <<<"$entry" && grep -q 'r1 + 104' <<<"$entry" &&
	   ! grep -q call <<<"$entry" &&
	   ! tail -n 2 <<<"$entry" | grep -q 'if r0'; then
		inline=yes
	fi
	case $env in X=1|DTRACE_BENCH_NOSPLIT=1) want=yes ;; *) want=no ;; esac
	[ "$inline" = "$want" ] ||
		fail_run "one clause, $env: prefilter inline: $inline" "$expected"
	saved=no
	grep -Eq '\<r[6-9]\>' <<<"$entry" && saved=yes
	[ "$env" = X=1 ] && [ $saved = yes ] &&
		fail_run "one clause: the entry uses callee-saved registers" "$expected"
	[ "$env" = DTRACE_BENCH_NOSPLIT=1 ] && [ $saved = no ] &&
		fail_run "one clause, $env: no callee-saved register" "$expected"
done

# exit() in one firing: the next firings, whose predicates hold, run
# nothing; the same with a predicate on something else than arguments.
for other in 'arg0 >= 1' 'pid == $target && arg0 >= 1'; do
	"$DTRACE" -q -c "$T 6" \
		-n 'pid$target:a.out:add:entry /arg0 == 1/ { printf("exit %d\n", arg0); exit(0); }' \
		-n "pid\$target:a.out:add:entry /$other/ { printf(\"after %d\\n\", arg0); }" \
		>out 2>err
	rc=$?
	expected='exit 1'
	actual=$(grep -v -e '^done ' -e '^$' out)
	[ $rc = 0 ] && [ "$actual" = "$expected" ] || fail_run "exit ($other)" "$expected"
done
exit 0
