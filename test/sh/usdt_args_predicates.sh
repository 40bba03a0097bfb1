#!/bin/bash
# SPDX-License-Identifier: MIT
# A USDT clause whose predicate reads only arguments is tested before the
# firing touches the session's state (the prefilter), with the site's
# argument read as code or looked up by its cookie, with or without a
# semaphore: the clause runs exactly when its predicate holds, and reads
# the same arguments and the same pid as without the prefilter.
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
exit 0
