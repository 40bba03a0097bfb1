#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# @timeout: 180
# A USDT probe that reaches its site while tracing, on the instruction of a
# pid probe of every process placed at start (pid:FILE:fire:OFF, the
# program started after dtrace): each probe fires once per hit with its
# own arguments, and the site keeps one uprobe, in one link of dtrace's
# (its fdinfo), which runs both probes' trampolines; a pid probe on
# another function, linked with the site before, still fires once per
# hit.  Twice: a <sys/sdt.h> site with no semaphore (its links made again
# before the old ones close), and a dtrace -G site with one (the kernel
# takes one semaphore per uprobe: its link is made again, with it); each
# with the uprobe_multi links and with the perf-event fallback.  And a
# pid probe that reaches a USDT site while tracing (a library loaded by
# the target).
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
[ -r /usr/include/x86_64-linux-gnu/sys/sdt.h ] || { echo "no <sys/sdt.h>"; exit 77; }

# The file offset of probe $2's site in ELF file $1 (its note's location:
# text is mapped at its own file offset), and fire()'s offset to it.
site_of() {
	readelf -n "$1" | awk -v p="$2" '$1 == "Name:" && $2 == p { getline; print $2; exit }' | tr -d ,
}
fire_off() {
	printf '%x' $(($2 - 0x$(nm "$1" | awk '$3 == "fire" { print $1 }')))
}

# uprobes_at FILE OFFSET: the uprobes of dtrace's links ($dt) at that
# offset of FILE; "?" when the kernel does not show them.
uprobes_at() {
	local f n=0 shown=
	for f in /proc/$dt/fdinfo/*; do
		grep -q '^link_type:.*uprobe_multi' "$f" 2>/dev/null || continue
		grep -q "^path:[[:space:]]*$1\$" "$f" || continue
		grep -Eq '^(cookie|offset)' "$f" && shown=1
		n=$((n + $(grep -Ec "^([0-9]+[[:space:]]+|offset:[[:space:]]*)$2([[:space:]]|\$)" "$f")))
	done
	[ -n "$shown" ] && echo $n || echo "?"
}

# late_site NAME BIN PROBE PROVIDER: trace pid:BIN:fire:OFF,
# pid:BIN:other:entry and PROVIDER*:::PROBE from before BIN starts.  BIN
# fires fire(1000 + k) until the file "go" exists, which the test makes
# once the USDT probe fired (its overlay is written once the site's new
# links are made and the old ones closed); then fire(i) and other(i) for
# i = 0, 1, 2: the pid probe reads i in %rdi (fire's argument), the USDT
# probe's arg0 is 10 * i + 1.
late_site() {
	local name=$1 bin=$2 probe=$3 prov=$4
	local loc off n i
	loc=$(site_of "$bin" "$probe")
	[ -n "$loc" ] || { fail "$name: no $probe note"; return; }
	off=$(fire_off "$bin" "$loc")
	rm -f go
	"$DTRACE" -Z -q ${MECH:+-x uprobe=$MECH} -n "BEGIN { printf(\"ready\\n\"); }
	pid:$bin:fire:$off { printf(\"pid %d %d\\n\", pid, uregs[R_RDI]); }
	pid:$bin:other:entry { printf(\"other %d %d\\n\", pid, arg0); }
	$prov*:::$probe { printf(\"usdt %d %d\\n\", pid, arg0); }" >out 2>err &
	dt=$!
	wait_for 30 has_line out '^ready$' || { cat err; fail "$name: dtrace did not start"; return; }
	"$bin" >/dev/null & local app=$!
	wait_for 30 has_line out "^usdt $app " || fail "$name: the usdt probe never fired"
	touch go
	wait $app
	sleep 0.3
	n=$(uprobes_at "$bin" "$(printf '0x%x' $((loc)))")
	kill -INT $dt; wait $dt
	[ "$n" = 1 ] || [ "$n" = "?" ] || fail "$name: $n uprobes at the site, not 1"
	[ "$n" = "?" ] && [ -z "${MECH:-}" ] &&
		echo "$name: the kernel shows no uprobes in fdinfo"
	for i in 0 1 2; do
		[ "$(grep -c "^pid $app $i\$" out)" = 1 ] ||
			fail "$name: pid probe, hit $i not once with its arguments"
		[ "$(grep -c "^usdt $app $((10 * i + 1))\$" out)" = 1 ] ||
			fail "$name: usdt probe, hit $i not once with its arguments"
		[ "$(grep -c "^other $app $i\$" out)" = 1 ] ||
			fail "$name: other:entry, hit $i not once"
	done
	[ "$(grep . out | grep -Evc "^(pid $app [0-9]{4}|usdt $app [0-9]{5})\$")" = 10 ] ||
		fail "$name: other firings than the hits"
	[ $status = 0 ] || { echo "--- $name"; cat out err; }
}

# main() of both programs.
main_c() {
	cat <<'C'
int main(void)
{
	for (int k = 0; access("go", F_OK) != 0; k++) {
		fire(1000 + k);
		usleep(20 * 1000);
	}
	for (int i = 0; i < 3; i++) {
		fire(i);
		other(i);
	}
	return 0;
}
C
}

# A <sys/sdt.h> probe without a semaphore.
cat >sdt.c <<'C'
#include <sys/sdt.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((noinline)) int other(int i)
{
	__asm__ volatile("" ::: "memory");
	return i;
}
__attribute__((noinline)) int fire(int i)
{
	DTRACE_PROBE1(latesite, tick, 10 * i + 1);
	return i;
}
C
main_c >>sdt.c
gcc -O2 -o "$W/sdt" sdt.c || { fail "building sdt"; exit 1; }
for MECH in "" perf; do
	late_site "sdt${MECH:+ $MECH}" "$W/sdt" tick latesite
	! grep -q 'placed again' err || fail "sdt: its link was made again"
done

# The other way round: a pid probe that reaches a USDT site while tracing.
# The site of myapp:::query-start in lib.so (test/usdt/lib.c), placed at
# start for a process that has the library loaded, and pid$target on its
# instruction, placed when the target loads the library (dlopen): from the
# pid probe's first hit on, each probe fires once per hit with its own
# arguments, on one uprobe.
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app_lib cc "$TESTDIR/usdt/app.c" "-O2" "" &&
build_app lib.so cc "$TESTDIR/usdt/lib.c" "-O2 -fPIC" "-shared" || exit 1
start_daemon
bg "$W/app_lib" 400 50 dlopen "$W/lib.so" >/dev/null; early=$!
wait_for 10 test -f "state/$early" || fail "pid late: app did not register"
loc=$(site_of lib.so query__start)
off=$(printf '%x' $((loc - 0x$(nm lib.so | awk '$3 == "lib_func" { print $1 }'))))
"$DTRACE" -Z -q -n "pid\$target:lib.so:lib_func:$off { printf(\"pid %d\\n\", uregs[R_RDI]); }
myapp*:::query-start /pid == \$target && probemod == \"lib.so\"/ {
	printf(\"usdt %d %s\\n\", arg0, copyinstr(arg1)); }" \
	-c "$W/app_lib 1000 20 dlopen $W/lib.so" >out 2>err &
dt=$!
# five hits after the pid probe's first (output comes in batches)
wait_for 60 eval '[ "$(grep -c "^pid " out)" -ge 5 ]' ||
	fail "pid late: the pid probe did not fire"
n=$(uprobes_at "$W/lib.so" "$(printf '0x%x' $((loc)))")
kill -INT $dt; wait $dt
kill $early
[ "$n" = 1 ] || [ "$n" = "?" ] || fail "pid late: $n uprobes at the site, not 1"
first=$(awk '$1 == "pid" { print $2; exit }' out)
last=$(awk '$1 == "pid" { i = $2 } END { print i }' out)
for i in $(seq "${first:-0}" "${last:-0}"); do
	[ "$(grep -c "^pid $i\$" out)" = 1 ] ||
		fail "pid late: pid probe, hit $i not once with its arguments"
	[ "$(grep -c "^usdt $i lib\$" out)" = 1 ] ||
		fail "pid late: usdt probe, hit $i not once with its arguments"
done
[ $status = 0 ] || { echo "--- pid late"; cat out err; }

# A dtrace -G probe, which has a semaphore.
cat >prov.d <<'D'
provider latesem { probe tick(int); };
D
cat >app.c <<'C'
#include <stdlib.h>
#include <unistd.h>
#include "prov.h"
__attribute__((noinline)) int other(int i)
{
	__asm__ volatile("" ::: "memory");
	return i;
}
__attribute__((noinline)) int fire(int i)
{
	LATESEM_TICK(10 * i + 1);
	return i;
}
C
main_c >>app.c
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
PROV=prov.d build_app app cc app.c "-O2" "" || exit 1
for MECH in "" perf; do
	late_site "sem${MECH:+ $MECH}" "$W/app" tick latesem
done
exit $status
