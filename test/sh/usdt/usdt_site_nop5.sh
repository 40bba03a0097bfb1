#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 90
# Sites made by <dtrace/usdt.h> are a nop (the note's address) and a 5-byte
# nop; where the kernel optimizes uprobes on 5-byte nops, and a child
# forked after that survives it, the usdt provider places its probe on the
# second (-x debug says where, and why not), and the kernel turns it into
# a call while traced and back into the nop after.
# In every placement (-x usdt.sitemode=auto, classic, nop5) the probe
# reads the same arguments, one of them a global read relative to %rip,
# and sees the same pc (uregs[R_PC], ustack()'s first frame);
# a forked child fires too, two sessions at once both see every firing,
# a process that registers with dtprobed while dtrace is stopped fires as
# its own probe (the programs look the note's address up in dtprobed's
# map), and a bad mode is refused by name.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
PROG=$B/test/progs/usdt_sites
[ -x "$PROG" ] || { echo "no $PROG"; exit 77; }

# The tick site: its file offset (the text of a PIE is mapped at offset 0
# from its vaddr) and its bytes.
loc=$(readelf -n "$PROG" | awk '/Name: tick$/ { getline; print $2; exit }' |
	tr -d ,)
[ -n "$loc" ] || { fail "no tick note in $PROG"; exit 1; }
bytes() { od -An -tx1 -j "$(($2))" -N "$3" "$1" | tr -d ' \n'; }
[ "$(bytes "$PROG" "$loc" 6)" = 900f1f440000 ] ||
	fail "the site is not a nop and a 5-byte nop: $(bytes "$PROG" "$loc" 6)"

# What auto chooses: the 5-byte nop where the kernel optimizes it and a
# forked child survives that (the engine tries it), else the classic nop.
if kernel_optimizes_uprobes; then
	auto='on (the 5-byte nop \(optimized\)|the nop the note names \(classic: the kernel.s optimized uprobes crash a forked child\))'
	fast=nop5
else
	auto='on the nop the note names \(classic: the kernel does not optimize uprobes\)'
	fast=
fi
# Every placement reads tick(i, 3 * i), i < 4.
for mode in auto classic nop5; do
	"$DTRACE" -x usdt.sitemode=$mode -x debug -q \
		-n 'sites$target:::tick { printf("tick %d %d\n", args[0], args[1]); }' \
		-c "$PROG 4" >out 2>err || { cat err; fail "$mode: dtrace failed"; }
	for i in 0 1 2 3; do
		has_line out "^tick $i $((3 * i))\$" || fail "$mode: no tick $i $((3 * i))"
	done
	[ "$(grep -c '^tick' out)" = 4 ] || fail "$mode: not 4 firings"
	case $mode in
	auto) want=$auto ;;
	classic) want='on the nop the note names \(usdt.sitemode=classic\)' ;;
	nop5) want='on the 5-byte nop' ;;
	esac
	has_line err "^dtrace DEBUG: usdt: probe sites[0-9]+:usdt_sites:fire:tick: the site at offset 0x[0-9a-f]+ of .*/usdt_sites: $want" ||
		{ cat err; fail "$mode: -x debug does not say: $want"; }
	[ $mode = auto ] && has_line err '5-byte nop \(optimized\)' && fast=auto
	# The pc is the note's address in every placement: uregs[R_PC] and
	# the first frame of ustack().
	"$DTRACE" -x usdt.sitemode=$mode -q -n 'sites$target:::tick /args[0] == 0/ {
		printf("pc %A\n", uregs[R_PC]); ustack(1); }' \
		-c "$PROG 1" 2>err | grep -v '^done' >pc.$mode ||
		{ cat err; fail "$mode: pc: dtrace failed"; }
	has_line pc.$mode '^pc usdt_sites`fire\+0x[0-9a-f]+$' ||
		{ cat pc.$mode err; fail "$mode: no pc in fire()"; }
	[ $mode = auto ] || cmp -s pc.auto pc.$mode ||
		{ diff pc.auto pc.$mode; fail "$mode: another pc or first frame than auto's"; }
done

# While traced, the optimized 5-byte nop is a call; after, the nop again,
# and the program goes on running.  (The site's vaddr is its file offset + the
# load address of the mapping at offset 0.)
memb() {
	python3 -c 'import sys
with open(sys.argv[1], "rb") as f:
    f.seek(int(sys.argv[2]))
    print(f.read(int(sys.argv[3])).hex())' "$@"
}
if [ -n "$fast" ]; then
	"$PROG" 100000 1 >prog.out & app=$!
	bgpids+=($app)
	"$DTRACE" -x usdt.sitemode=$fast -q \
		-n 'sites$target:::tick { printf("tick %d\n", args[0]); }' \
		-p $app >out 2>err & dt=$!
	wait_for 10 has_line out '^tick' || { cat err; fail "$fast: no firing"; }
	base=$(awk -v f="$(readlink -f "$PROG")" '$6 == f && $3 == "00000000" {
		split($1, a, "-"); print a[1]; exit }' /proc/$app/maps)
	site=$((0x$base + loc + 1))
	traced=$(memb /proc/$app/mem $site 1)
	[ "$traced" = e8 ] || fail "$fast: the traced 5-byte nop is not a call: $traced"
	kill -INT $dt; wait $dt
	[ "$(memb /proc/$app/mem $site 5)" = 0f1f440000 ] ||
		fail "$fast: after tracing, the site is $(memb /proc/$app/mem $site 5)"
	sleep 0.1
	kill -0 $app 2>/dev/null || fail "$fast: the program died after tracing"
	kill $app; wait $app 2>/dev/null
fi

# A forked child fires the probe of every process too, with its arguments,
# and survives (auto never makes a call that a forked child crashes on).
"$DTRACE" -q -n 'sites*:::tick /progenyof($target)/ {
	printf("tick %d %d %d\n", pid, args[0], args[1]); }' \
	-c "$PROG 3 0 fork" >out 2>err || { cat err; fail "fork: dtrace failed"; }
[ "$(grep -c '^done' out)" = 2 ] || { cat out err; fail "fork: a process did not finish"; }
[ "$(awk '$1 == "tick" && $4 == 3 * $3' out | cut -d' ' -f2 | sort -u | wc -l)" = 2 ] &&
[ "$(grep -c '^tick' out)" = 6 ] || { cat out err; fail "fork: not 3 firings in each of 2 processes"; }

# Two sessions at once on one process both see every firing.
"$PROG" 30 5 wait "$W/go" >/dev/null & app=$!
bgpids+=($app)
for s in 1 2; do
	"$DTRACE" -q -n "BEGIN { printf(\"ready\\n\"); }
	sites$app:::tick { printf(\"tick %d %d\\n\", args[0], args[1]); }" \
		>out$s 2>err$s &
	eval dt$s=$!
done
wait_for 10 has_line out1 '^ready$' && wait_for 10 has_line out2 '^ready$' ||
	fail "two sessions: did not start"
touch "$W/go"
wait $app
sleep 0.2
kill -INT $dt1 $dt2; wait $dt1 $dt2
for s in 1 2; do
	[ "$(grep -c '^tick' out$s)" = 30 ] &&
	[ "$(awk '$1 == "tick" && $3 != 3 * $2' out$s | wc -l)" = 0 ] ||
		{ cat out$s err$s; fail "two sessions: session $s missed firings"; }
done

# Registered while dtrace is stopped, on the 5-byte nop: myappPID.
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1
start_daemon
bg "$W/app" 400 50 >/dev/null; early=$!		# maps the file first
wait_for 3 test -f "state/$early" || fail "app did not register"
"$DTRACE" -x usdt.sitemode=nop5 -q -n 'BEGIN { printf("ready\n"); }
myapp*:::tick { printf("tick %s %d %d\n", probeprov, pid, args[0]); }' \
	>out 2>err &
dt=$!
wait_for 10 has_line out '^ready$' || { cat err; fail "registered: dtrace did not start"; }
kill -STOP $dt
"$W/app" 3 20 wait go1 >/dev/null & stopped=$!
wait_for 10 test -f "state/$stopped" || fail "registered: app did not register"
touch go1
wait $stopped
kill -CONT $dt
sleep 0.5
kill -INT $dt; wait $dt
for i in 0 1 2; do
	has_line out "^tick myapp$stopped $stopped $i\$" ||
		{ cat out err; fail "registered: tick $i not seen as myapp$stopped"; }
done

"$DTRACE" -x usdt.sitemode=fast -n BEGIN >out 2>err && fail "a bad mode was accepted"
has_line err 'usdt: -x usdt.sitemode=fast: expected auto, classic or nop5' ||
	{ cat err; fail "a bad mode is not refused by name"; }
exit $status
