#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/exec_gate.sh: what the exec gate (dtrace/gate/dt_gate.c) costs and buys.
#
#   sudo bench/exec_gate.sh [EXECS [FRESH]]      (B=build-dir, default build/)
#
# 1. Cost per exec on the machine: EXECS (default 2000) spawns of /bin/true
#    by a small C loop (posix_spawn + waitpid), in microseconds per exec:
#    without dtrace, with a session holding a "provider*" description (gate
#    on), and with the same session under -x execgate=off (exec watch only).
# 2. What a held exec waits: FRESH (default 20) fresh copies of a program
#    whose files carry notes nobody has seen; the gate's own statistics
#    (hold average and maximum, from DTRACE_EXEC_STATS).  Also every exec
#    of the machine meanwhile (others' programs too): how many the watchdog
#    answered from its cache of known executables, how many it held for
#    dtrace's gate thread (a program not seen before), and where their
#    wait went: until the gate thread ran, and its reading of the files.
# 3. First firings seen: each fresh program fires first thing in main();
#    how many of those firings the session printed, gate on and off.
# 4. While dtrace is stopped (SIGSTOP), which its watchdog (dt_gatewd.c)
#    makes harmless: us per exec of /bin/true, and of FRESH fresh programs
#    (their execs go on at once, unheld).
# No target: figures.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_root
need_dtrace
command -v gcc >/dev/null && [ -r /usr/include/x86_64-linux-gnu/sys/sdt.h ] ||
	{ echo "bench: needs gcc and <sys/sdt.h> (systemtap-sdt-dev)" >&2; exit 2; }
EXECS=${1:-2000}
FRESH=${2:-20}

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cat >"$W/spawn.c" <<'C'
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
extern char **environ;
int main(int argc, char **argv)
{
	int n = atoi(argv[1]);
	char *args[] = { argv[2], NULL };
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		pid_t p;
		int st;
		if (posix_spawn(&p, argv[2], NULL, NULL, args, environ) != 0 ||
		    waitpid(p, &st, 0) != p)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 +
			  (b.tv_nsec - a.tv_nsec)) / 1e3 / n);
	return 0;
}
C
cat >"$W/first.c" <<'C'
#include <sys/sdt.h>
int main(void)
{
	DTRACE_PROBE(bench_gate, first);
	return 0;
}
C
gcc -O2 -o "$W/spawn" "$W/spawn.c" && gcc -O2 -o "$W/first" "$W/first.c" ||
	exit 2

# session OPTS...: start dtrace in the background, wait for BEGIN; sets DT.
session() {
	DTRACE_EXEC_STATS=1 "$DTRACE" -Z -q "$@" -n '
	BEGIN { printf("ready\n"); }
	bench_gate*:::first { printf("first %d\n", pid); }' >"$W/out" 2>"$W/err" &
	DT=$!
	for _ in $(seq 100); do
		grep -q ready "$W/out" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "bench: dtrace did not start:" >&2
	cat "$W/err" >&2
	exit 2
}

# fresh_runs: run FRESH fresh copies of the program; sets SEEN.
fresh_runs() {
	local i p pids=""
	for i in $(seq "$FRESH"); do
		cp "$W/first" "$W/first.$i.$1"
		"$W/first.$i.$1" &
		p=$!
		pids="$pids $p"
		wait $p
	done
	sleep 0.2
	kill -INT "$DT"
	wait "$DT"
	SEEN=0
	for p in $pids; do
		grep -qx "first $p" "$W/out" && SEEN=$((SEEN + 1))
	done
}

"$W/spawn" 200 /bin/true >/dev/null	# warm up
base=$("$W/spawn" "$EXECS" /bin/true)

session
on=$("$W/spawn" "$EXECS" /bin/true)
fresh_runs on
seen_on=$SEEN
hold=$(grep -o "hold avg [0-9]* us max [0-9]* us" "$W/err")
machine=$(sed -n 's/.*: \([0-9]*\) execs, .*watchdog: \([0-9]*\) answered from its cache, \([0-9]*\) waited for dtrace (avg \([0-9]*\) us max \([0-9]*\) us).*until the gate thread ran avg \([0-9]*\) us, deciding avg \([0-9]*\) us/\1 execs: \2 known, \3 held for dtrace, avg \4 us (max \5 us), of which until the gate thread ran \6 us, deciding \7 us/p' "$W/err")

session -x execgate=off
off=$("$W/spawn" "$EXECS" /bin/true)
fresh_runs off
seen_off=$SEEN

session
kill -STOP "$DT"
stopped=$("$W/spawn" "$EXECS" /bin/true)
for i in $(seq "$FRESH"); do cp "$W/first" "$W/first.$i.stopped"; done
fresh_stopped=$(for i in $(seq "$FRESH"); do
	"$W/spawn" 1 "$W/first.$i.stopped"; done |
	awk '{ s += $1 } END { printf "%.1f", s / NR }')
kill -CONT "$DT"
kill -INT "$DT"
wait "$DT"

printf "exec of /bin/true, us per exec (%d execs):\n" "$EXECS"
printf "  no dtrace                      %8s\n" "$base"
printf "  dtrace, exec gate on           %8s  (+%s)\n" "$on" \
	"$(awk -v a="$on" -v b="$base" 'BEGIN { printf "%.1f", a - b }')"
printf "  dtrace, -x execgate=off        %8s  (+%s)\n" "$off" \
	"$(awk -v a="$off" -v b="$base" 'BEGIN { printf "%.1f", a - b }')"
printf "exec of a program with new USDT files (gate on): %s\n" \
	"${hold:-no exec held}"
printf "every exec of the machine meanwhile (gate on): %s\n" \
	"${machine:-no statistics}"
printf "first firings seen of %d fresh programs: gate on %d, gate off %d\n" \
	"$FRESH" "$seen_on" "$seen_off"
printf "while dtrace is stopped: /bin/true %s us per exec (+%s), a fresh " \
	"$stopped" "$(awk -v a="$stopped" -v b="$base" \
		      'BEGIN { printf "%.1f", a - b }')"
printf "program %s us per exec\n" "$fresh_stopped"
