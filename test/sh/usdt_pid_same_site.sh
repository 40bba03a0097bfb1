#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# A pid probe and a USDT probe on one instruction (the site of myapp:::tick
# in fire(), as pid$target:app:fire:OFFSET): each fires once per hit, its
# own arguments, whether the USDT probe is named for the target
# (myapp$target) or for every process (myapp*); and both are served by one
# underlying probe, whose one program (dtrace -S) runs each provider's
# trampoline for its own probe.  With more clauses than one BPF program
# may call (a chain of programs), each entry's trampoline still runs first.
. "$TESTDIR/usdt/trace_lib.sh"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1

# The tick site's offset in fire(): its note's location less fire's address.
loc=$(readelf -n app | awk '/Name: tick$/ { getline; print $2; exit }' |
	tr -d ,)
fire=$(nm app | awk '$3 == "fire" { print $1 }')
[ -n "$loc" ] && [ -n "$fire" ] || { fail "no tick note or fire symbol"; exit 1; }
off=$(printf '%x' $((loc - 0x$fire)))

for usdt in 'myapp$target' 'myapp*'; do
	"$DTRACE" -S -q -n "pid\$target:app:fire:$off { @p[uregs[R_RBX]] = count(); }
	$usdt:::tick /pid == \$target/ { @u[arg0] = count(); }
	END { printa(\"pid %d %@d\\n\", @p); printa(\"usdt %d %@d\\n\", @u); }" \
		-c "$W/app 3" >out 2>err || { cat err; fail "$usdt: dtrace failed"; }
	# (myapp* may also see other processes' files: usdt programs of
	# their own)
	progs=$(grep ' program, kind' err)
	[ "$(echo "$progs" | grep -cE '^(pid\+usdt|usdt\+pid) program')" = 1 ] &&
	! echo "$progs" | grep -qE '^pid program' ||
		fail "$usdt: not one program for the shared site: $progs"
	for i in 0 1 2; do
		has_line out "^pid $i 1\$" || fail "$usdt: pid probe, hit $i not once"
		has_line out "^usdt $i 1\$" || fail "$usdt: usdt probe, hit $i not once"
	done
	[ $status = 0 ] || { echo "--- $usdt"; cat out; grep -v '^[0-9]' err; }
done

n=130
{
	for _ in $(seq $n); do
		echo "pid\$target:app:fire:$off { @p[uregs[R_RBX]] = count(); }"
		echo 'myapp$target:::tick { @u[arg0] = count(); }'
	done
	echo 'END { printa("pid %d %@d\n", @p); printa("usdt %d %@d\n", @u); }'
} >many.d
"$DTRACE" -q -s many.d -c "$W/app 3" >out 2>err || { cat err; fail "many: dtrace failed"; }
for i in 0 1 2; do
	has_line out "^pid $i $n\$" || fail "many: pid probe, hit $i not $n times"
	has_line out "^usdt $i $n\$" || fail "many: usdt probe, hit $i not $n times"
done
[ $status = 0 ] || { echo "--- many"; cat out err; }
exit $status
