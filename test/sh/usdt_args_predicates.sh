#!/bin/bash
# SPDX-License-Identifier: MIT
# A USDT clause whose predicate reads only arguments is tested before the
# firing touches the session's state (the prefilter), with the site's
# argument read as code or looked up by its cookie, with or without a
# semaphore: the clause runs exactly when its predicate holds, and reads
# the same arguments and the same pid as without the prefilter; a lone
# clause's prefilter runs inline.
set -u
[ -x "$DTRACE" ] || exit 77
[ -x "$B/test/progs/bench_usdt" ] || exit 77

fail() {
	echo "$1: exit $rc; stdout:"; cat out; echo "stderr:"; cat err
	echo "expected:"; echo "$expected"
	exit 1
}

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
		[ $rc = 0 ] && [ "$actual" = "$expected" ] || fail "$prog $env"
	done
done

# One clause: the prefilter reads the attach cookie from the helper's
# return, not back from the firing key's copy on the stack, so it runs
# inline at the program's entry (the listing's first lines, up to the
# first exit, use no stack and call no subprogram, and of r6 to r9 only
# r6, which holds the context).  The same firings run
# with it as a call and with its copy of the key kept.
expected='t 5
t 7'
for env in X=1 DTRACE_BENCH_NOPREINLINE=1 DTRACE_BENCH_NOPREOPT=1; do
	env $env "$DTRACE" -q -S -c "$B/test/progs/bench_usdt 8" \
		-n 'bench$target:::tick /(arg0 & 5) == 5/ { printf("t %d\n", arg0); }' \
		>out 2>err
	rc=$?
	actual=$(grep '^t ' out)
	[ $rc = 0 ] && [ "$actual" = "$expected" ] || fail "one clause, $env"
	entry=$(sed -n '/^usdt program/,/exit$/p' err)
	inline=no
	if grep -q 'call bpf_get_attach_cookie' <<<"$entry" &&
	   ! grep -q -e 'call pc' -e r10 <<<"$entry"; then
		inline=yes
	fi
	[ "$inline" = "$([ "$env" = X=1 ] && echo yes || echo no)" ] ||
		fail "one clause, $env: prefilter inline: $inline"
	# Inline, the context stays in r6 across the helper, and the values
	# made after it live in caller-saved registers: the entry saves one
	# register.
	if [ "$env" = X=1 ] &&
	   { grep -Eq '\<r[7-9]\>' <<<"$entry" ||
	     [ "$(grep -c 'r6 = ' <<<"$entry")" != 1 ]; }; then
		fail "one clause: the entry uses more than r6 of r6 to r9"
	fi
done
exit 0
