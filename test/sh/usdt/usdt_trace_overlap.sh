#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# Overlapping probes on one site all fire, once each, in one session: a pid
# probe at the instruction of a USDT site (pid$target:app:fire:OFF, OFF
# found from the stapsdt note's pc and fire's symbol) and the USDT probe on
# the same instruction, for a program built with dtrace -h/-G, both for
# myapp$target and for myapp*; the site's semaphore is shared, so
# MYAPP_QUERY_START_ENABLED() stays true while the probes are traced.
# (myapp* also covers other tests' programs running meanwhile: hence the
# pid predicate.)
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
build_all

loc=$(readelf -n app | awk '/Name: query__start$/ { getline; sub(",", "", $2); print $2 }' | head -1)
fn=$(nm app | awk '$3 == "fire" { print $1 }')
[ -n "$loc" ] && [ -n "$fn" ] || { fail "no query__start site or fire in app"; exit 1; }
off=$(printf '%x' $((loc - 0x$fn)))
[ "$(readelf -n app | grep -c 'Name: query__start$')" = 1 ] || { fail "one query__start site expected"; exit 1; }

for prv in 'myapp$target' 'myapp*'; do
	"$DTRACE" -q -n "pid\$target:app:fire:$off { printf(\"pid\n\"); }" \
		-n "$prv:::query-start /pid == \$target/ { printf(\"qs %d\n\", args[1]); }" \
		-c "$W/app 3 10" >out 2>err || { cat err; fail "$prv: dtrace failed"; continue; }
	# the order of the two probes of one site is the engine's; both once
	a=$(grep -v '^$' out | grep -v enabled | sort | tr '\n' ' ')
	e=$(printf 'pid\npid\npid\nqs 0\nqs 1\nqs 2\n' | tr '\n' ' ')
	[ "$a" = "$e" ] || { fail "$prv: firings"; cat out err; }
	[ "$(grep -c '^enabled$' out)" = 3 ] || fail "$prv: semaphore not raised"
done
exit $status
