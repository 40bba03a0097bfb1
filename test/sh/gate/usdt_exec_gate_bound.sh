#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# @timeout: 90
# No state of dtrace makes the exec gate (dtrace/gate/dt_gate.c, dt_gatewd.c)
# hold an exec longer than its bound (GATE_HOLD_MAX_MS).  While an exec storm
# runs (100 execs of /bin/true, and fresh programs whose USDT notes nobody
# has seen, which the gate hands to dtrace; 30 execs of /bin/true only while
# starving, which is hard on the machine):
#   1. dtrace stopped by SIGSTOP: every exec ends within a few bounds, the
#      fresh programs are named as having run before their probes were
#      placed, and once dtrace continues, a fresh program is traced from its
#      first instruction again;
#   2. dtrace's process group stopped (`kill -STOP -PGID`, what `kill -STOP
#      %1` does to a job): the same, the watchdog being out of the group
#      (its own session); before, it stopped with dtrace and an exec waited
#      as long as the group stayed stopped;
#   3. dtrace starved of CPU (SCHED_IDLE, pinned with six busy loops to one
#      CPU that its watchdog shares): every exec ends within a few bounds;
#   4. the watchdog stopped by SIGSTOP: dtrace ends it, and every exec ends
#      within a few bounds.
# dtrace runs in a session and process group of its own (setsid), so that
# its group can be stopped without the test, and ends with status 0.
# The margin (4 bounds per exec) is tied to the bound, not to the machine:
# an exec of /bin/true takes a few milliseconds, and before the watchdog an
# exec waited as long as dtrace was stopped.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt
command -v chrt >/dev/null && command -v taskset >/dev/null ||
	{ echo "no chrt or taskset"; exit 77; }

bound_ms=$(awk '/define GATE_HOLD_MAX_MS/ { print $3 }' \
	"$TESTDIR/../dtrace/gate/dt_gatewd.h")
[ -n "$bound_ms" ] || { echo "no GATE_HOLD_MAX_MS"; exit 1; }
limit_ms=$((4 * bound_ms))

cat >spawn.c <<'C'
/* spawn COUNT PROG [COUNT PROG]...: say "ready"; once a line is read from
 * stdin, run each PROG COUNT times, one run after the other; print the
 * longest run in milliseconds.  Started before the storm, as its own exec could be
 * held. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
extern char **environ;
static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
int main(int argc, char **argv)
{
	double longest = 0;
	char line[16];
	printf("ready\n");
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) == NULL)
		return 1;
	for (int j = 1; j + 1 < argc; j += 2) {
		for (int i = 0; i < atoi(argv[j]); i++) {
			char *args[] = { argv[j + 1], NULL };
			pid_t p;
			int st;
			double t0 = now_ms();
			if (posix_spawn(&p, argv[j + 1], NULL, NULL, args,
					environ) != 0 || waitpid(p, &st, 0) != p)
				return 1;
			if (now_ms() - t0 > longest)
				longest = now_ms() - t0;
		}
	}
	printf("%.0f\n", longest);
	return 0;
}
C
cat >prog.c <<'C'
#include <sys/sdt.h>
int main(void)
{
	DTRACE_PROBE(exb_prog, first);
	return 0;
}
C
gcc -O2 -o spawn spawn.c && gcc -O2 -o prog prog.c || exit 1

DTRACE_EXEC_STATS=1 setsid "$DTRACE" -Z -q -n '
BEGIN { printf("ready\n"); }
exb_prog*:::first { printf("first %s\n", execname); }' >out 2>err &
dt=$!
busy=""
cleanup() {
	[ -n "$busy" ] && kill $busy 2>/dev/null
	[ -n "$dt" ] || return
	kill -CONT -- -$dt 2>/dev/null
	kill -INT $dt 2>/dev/null	# a test that failed early
}

trap cleanup EXIT
for _ in $(seq 100); do grep -q ready out 2>/dev/null && break; sleep 0.1; done
grep -q ready out || { cat err; exit 1; }
# setsid execs dtrace itself when the shell's child leads no group, as here.
pgid=$(sed 's/.*) [A-Za-z] [0-9]* \([0-9]*\) .*/\1/' /proc/$dt/stat)
[ "$pgid" = "$dt" ] || { echo "dtrace leads no process group ($pgid)"; exit 1; }
watchdog=$(cat /proc/$dt/task/*/children 2>/dev/null | tr ' ' '\n' |
	   grep -m1 .)
[ -n "$watchdog" ] || fail "dtrace has no watchdog process"
./spawn 5 /bin/true >/dev/null

# storm NAME WHAT DO UNDO N: N execs of /bin/true and 3 fresh programs,
# while DO is in effect; fails when an exec took longer than the limit.
# Only shell builtins run between DO and UNDO (an exec could be held), and
# a guard runs UNDO after 10 s, so that a gate that holds execs makes the
# test fail rather than hang.
# The storm runs on the last CPU, away from the busy loops of CPU 0.
spawn_cpu=$(($(nproc) - 1))
mkfifo never go ms && exec 9<>never
storm() {
	local i longest="" progs="" guard spawner
	for i in 1 2 3; do
		cp prog "$1$i" && progs="$progs 1 ./$1$i"
	done
	exec 8<>go 7<>ms
	taskset -c $spawn_cpu ./spawn $5 /bin/true $progs <go >&7 &
	spawner=$!
	read -r -u 7 _	# its exec is done
	$3
	( read -r -t 10 -u 9; $4 ) &
	guard=$!
	echo go >&8
	wait $spawner
	kill $guard 2>/dev/null
	$4
	read -r -t 1 -u 7 longest
	exec 8>&- 7>&-
	[ "${longest:-99999}" -le $limit_ms ] ||
		fail "$1: an exec took ${longest:-forever} ms while dtrace $2" \
		     "(limit ${limit_ms} ms, 4 times the bound)"
}
starve() {
	for _ in 1 2 3 4 5 6; do
		taskset -c 0 sh -c 'while :; do :; done' &
		busy="$busy $!"
	done
}
unstarve() {
	[ -n "$busy" ] && kill $busy 2>/dev/null
	busy=""
}

# after_stopping NAME: a fresh program run once dtrace continued is traced
# from its first instruction, and the programs of the storm NAME, which
# ran unheld, were named.
after_stopping() {
	cp prog "after_$1" && "./after_$1"
	for i in 1 2 3; do
		grep -q "pid [0-9]* (.*/$1$i) started before its probes were placed" \
			err || fail "$1$i ran unheld without a word"
	done
}

# 1. SIGSTOP
storm stopped "was stopped" "kill -STOP $dt" "kill -CONT $dt" 100
after_stopping stopped

# 2. dtrace's process group stopped, as the shell's `kill -STOP %1` does.
storm pgstopped "was stopped as a job (its group)" "kill -STOP -- -$dt" \
	"kill -CONT -- -$dt" 30
after_stopping pgstopped

# 3. Starvation: dtrace idle-class on CPU 0, six busy loops there, and the
# watchdog pinned there too.
taskset -a -p -c 0 $dt >/dev/null && chrt -a -i -p 0 $dt &&
	taskset -p -c 0 "$watchdog" >/dev/null || fail "cannot starve dtrace"
storm starved "was starved of CPU" starve unstarve 30
chrt -a -o -p 0 $dt

# 4. The watchdog itself stopped by SIGSTOP: dtrace ends it, which lets
# every exec go, and says so.
storm wdstopped "had its watchdog stopped" "kill -STOP $watchdog" \
	"kill -CONT $watchdog" 30
grep -q "the exec gate's watchdog was stopped: it was ended" err ||
	fail "the watchdog's stop was not reported"

sleep 0.5
kill -INT $dt
wait $dt
rc=$?
dt=""
[ $rc = 0 ] || fail "dtrace ended with status $rc"
for name in stopped pgstopped; do
	grep -qx "first after_$name" out ||
		fail "a fresh program after SIGCONT ($name) was not traced from its start"
done
[ $status = 0 ] || { echo "--- out"; cat out; echo "--- err"; cat err; }
exit $status
