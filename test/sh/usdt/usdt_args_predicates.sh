#!/bin/bash
# SPDX-License-Identifier: MIT
# A USDT clause whose predicate reads only arguments is tested before the
# firing touches the session's state (the prefilter), with the site's
# argument read as code or looked up by its cookie, with or without a
# semaphore: the clause runs exactly when its predicate holds, and reads
# the same arguments and the same pid as without the prefilter; a lone
# clause's prefilter runs inline.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
[ -x "$B/test/progs/bench_usdt" ] || exit 77

expected='t 3 1
t 5 1
even 3'
for prog in bench_usdt bench_usdt_sem; do
	prov=${prog#bench_usdt}
	prov=bench${prov:+_}${prov#_}
	for env in X=1 DTRACE_BENCH_USDT_LOOKUP=1 DTRACE_BENCH_NOPREFILTER=1; do
		env $env "$DTRACE" -q -c "$B/test/progs/$prog 8" \
			-n "$prov\$target:::tick /arg0 == 3 || arg0 == 5/ { printf(\"t %d %d\\n\", arg0, pid == \$target); }" \
			-n "$prov\$target:::tick /(arg0 & 1) == 0 && arg0 != 0/ { @even = count(); }" \
			-n 'END { printa("even %@d\n", @even); }' >out 2>err
		rc=$?
		actual=$(grep -v -e '^bench_usdt' -e '^$' out)
		[ $rc = 0 ] && [ "$actual" = "$expected" ] || fail_run "$prog $env" "$expected"
	done
done

# One clause: its prefilter runs inline at the program's entry (the
# listing's first lines, up to the first exit, use no stack and call no
# subprogram).  The program serves the one site for good, so the entry
# reads the argument where it is, calls no helper for the attach cookie
# and saves no register.  In a program that may serve other sites
# (DTRACE_BENCH_NOSOLE) the entry calls the helper, keeps the context in
# r6 across it and, of r6 to r9, uses only r6.  The same firings run with
# the prefilter as a call and with its copy of the key kept.
expected='t 5
t 7'
for env in X=1 DTRACE_BENCH_NOSOLE=1 DTRACE_BENCH_NOPREINLINE=1 \
	   DTRACE_BENCH_NOPREOPT=1; do
	env $env "$DTRACE" -q -S -c "$B/test/progs/bench_usdt 8" \
		-n 'bench$target:::tick /(arg0 & 5) == 5/ { printf("t %d\n", arg0); }' \
		>out 2>err
	rc=$?
	actual=$(grep '^t ' out)
	[ $rc = 0 ] && [ "$actual" = "$expected" ] || fail_run "one clause, $env" "$expected"
	entry=$(sed -n '/^usdt program/,/exit$/p' err)
	inline=no
	grep -q -e 'call pc' -e r10 <<<"$entry" || inline=yes
	case $env in
	X=1|DTRACE_BENCH_NOSOLE=1) want=yes ;;
	*) want=no ;;
	esac
	[ "$inline" = "$want" ] ||
		fail_run "one clause, $env: prefilter inline: $inline" "$expected"
	helper=no
	grep -q 'call bpf_get_attach_cookie' <<<"$entry" && helper=yes
	regs=$(grep -Eo '\<r[6-9]\>' <<<"$entry" | sort -u | tr '\n' ' ')
	case $env in
	X=1)
		[ "$helper/$regs" = "no/" ] ||
			fail_run "one clause: the sole site's entry: helper $helper, registers $regs" "$expected" ;;
	DTRACE_BENCH_NOSOLE=1)
		[ "$helper/$regs" = "yes/r6 " ] &&
		[ "$(grep -c 'r6 = ' <<<"$entry")" = 1 ] ||
			fail_run "one clause, $env: the entry: helper $helper, registers $regs" "$expected" ;;
	esac
done
exit 0
