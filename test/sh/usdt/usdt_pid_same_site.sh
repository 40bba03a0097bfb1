#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# A pid probe and a USDT probe on one instruction (the site of myapp:::tick
# in fire(), as pid$target:app:fire:OFFSET, OFFSET the instruction the
# USDT probe is placed on): each fires once per hit, its
# own arguments, whether the USDT probe is named for the target
# (myapp$target) or for every process (myapp*); and both are served by one
# underlying probe, whose one program (dtrace -S) runs each provider's
# trampoline for its own probe.  Also a pid probe of every process on the
# site of a process's own USDT probe: both fire in that process.  With more clauses than one BPF program
# may call (a chain of programs), each entry's trampoline still runs first.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1

# The tick site's offset in fire(): its note's location less fire's
# address, and past it the instruction its probe goes on (the 5-byte nop
# after the note's where the kernel optimizes uprobes there).
loc=$(readelf -n app | awk '/Name: tick$/ { getline; print $2; exit }' |
	tr -d ,)
fire=$(nm app | awk '$3 == "fire" { print $1 }')
[ -n "$loc" ] && [ -n "$fire" ] || { fail "no tick note or fire symbol"; exit 1; }
off=$(printf '%x' $((loc - 0x$fire + $(usdt_site_shift "$W/app 1" 'myapp$target:::tick'))))

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

# A pid probe of every process that runs the file and the USDT probe of a
# process running before dtrace: the process's overlay holds both.
start_daemon
"$W/app" 3 20 wait "$W/go" >/dev/null & app=$!
wait_for 5 test -f "state/$app" || fail "app did not register"
"$DTRACE" -q -n "BEGIN { printf(\"ready\\n\"); }
pid:$W/app:fire:$off { printf(\"pid %d %d\\n\", pid, uregs[R_RBX]); }
myapp*:::tick /pid == $app/ { printf(\"usdt %d %d\\n\", pid, arg0); }" \
	>out 2>err &
dt=$!
wait_for 10 has_line out '^ready$' || fail "every process: dtrace did not start"
touch go
wait $app
sleep 0.3
kill -INT $dt; wait $dt
for i in 0 1 2; do
	[ "$(grep -c "^pid $app $i\$" out)" = 1 ] ||
		fail "every process: pid probe, hit $i not once"
	[ "$(grep -c "^usdt $app $i\$" out)" = 1 ] ||
		fail "every process: usdt probe, hit $i not once"
done
[ $status = 0 ] || { echo "--- every process"; cat out err; }

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
