#!/bin/bash
# SPDX-License-Identifier: MIT
# test/soak/soak.sh: one dtrace session traces for SOAK_TIME seconds
# (default an hour) against churning processes, and nothing may be lost,
# leaked or harmed.  Run by `make soak` (root), never by make check.
#
# The session: a program calling its functions without end (pid entry and
# return probes, aggregations keyed by a value that keeps changing, cleared
# every second, a printf() to the -o file for one call in 1000), and USDT
# probes of programs not started yet, while
#   - exec:   a short program with <sys/sdt.h> probes (10 firings) starts
#             every SOAK_EXEC_MS ms (the exec gate covers it from its first
#             instruction: every firing must be seen);
#   - dlopen: every second a program dlopen()s a library with probes that
#             fires 20 times, 50 ms apart (the exec watch places them a few
#             ms late: the last firing of each must be seen);
#   - reg:    every second a program built with dtrace -G registers with
#             dtprobed and fires 5 times (every firing must be seen);
#   - dtprobed, the test's own (socket, state and pinned map of its own), is
#             killed with SIGKILL and started again every SOAK_RESTART
#             seconds during the first half of the run, and runs on
#             uninterrupted in the second half;
#   - flood:  (SOAK_FLOOD=1, the default) a throwaway user, made for the
#             run and removed after it, floods that dtprobed without end:
#             eight processes connecting and sending garbage, four
#             registering fake sites past the user's budget; root's
#             registrations (reg) must lose nothing to it.
# Sampled every SOAK_SAMPLE seconds: dtrace's resident size, descriptors
# and memory mappings; dtprobed's (second half), its pinned map's entries
# of processes gone since the last sample (its total, printed, moves with
# the flood's live registrations) and its state files.  After the first tenth of the run (warm-up), the
# median of the last quarter of each series may exceed the median of the
# first quarter by at most SOAK_SLACK_KB for sizes and by 8 for counts.
# Every churning program must exit 0 having computed what it computes
# untraced.  Prints the figures either way and keeps the samples in
# $B/soak.samples; exit 1 on any loss, growth or harm.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
DTRACE=$B/dtrace
export DTRACE_PLUGIN_PATH=$B/plugins
SOAK_TIME=${SOAK_TIME:-3600}
SOAK_SAMPLE=${SOAK_SAMPLE:-10}
SOAK_EXEC_MS=${SOAK_EXEC_MS:-200}
SOAK_RESTART=${SOAK_RESTART:-60}
SOAK_SLACK_KB=${SOAK_SLACK_KB:-2048}
SOAK_FLOOD=${SOAK_FLOOD:-1}
T=$B/test/progs/pidtarget
[ -x "$DTRACE" ] && [ -x "$B/dtprobed" ] && [ -x "$T" ] ||
	{ echo "soak: build first (make)"; exit 1; }
[ "$SOAK_SAMPLE" -lt "$SOAK_TIME" ] || SOAK_SAMPLE=$((SOAK_TIME / 4))

work=$(mktemp -d)
export DTPROBED_SOCKET=$work/sock DTPROBED_STATEDIR=$work/state
PINDIR=/sys/fs/bpf/dtprobed-soak-$$
export DTPROBED_MAP=$PINDIR/usdt_procs
prog= dt= dpid= churners=
cd "$work" || exit 1
if [ "$SOAK_FLOOD" = 1 ]; then
	. "$ROOT/test/sh/lib/user_lib.sh"
	throwaway_user		# (exits 77 when no user can be made)
	U=$(user_dir u) || { echo "soak: cannot make the user's directory"; exit 1; }
	cp "$ROOT/test/usdt/dtp_send.py" "$U/"
fi
cleanup() {
	kill $churners $prog $dt $dpid 2>/dev/null
	wait 2>/dev/null
	[ "$SOAK_FLOOD" = 1 ] && remove_throwaway_user
	rm -rf "$work" "$PINDIR"
}
trap cleanup EXIT

# Programs of their own, with providers of their own: the probes of the
# tests' programs stay untouched for tests that run meanwhile.
cat >sdt_prog.c <<'C'
#include <sys/sdt.h>
int main(int argc, char **argv)
{
	for (int i = 0; i < 10; i++)
		DTRACE_PROBE2(dtsoak, tick, i, argc);
	return argv[0] == 0;
}
C
cat >lib.c <<'C'
#include <sys/sdt.h>
#include <time.h>
int lib_fire(int n);
int lib_fire(int n)
{
	struct timespec ts = { 0, 50 * 1000000 };
	int sum = 0;
	for (int i = 0; i < n; i++) {
		DTRACE_PROBE1(dtsoaklib, ping, i);
		sum += i;
		nanosleep(&ts, NULL);
	}
	return sum;
}
C
cat >loader.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL) { fprintf(stderr, "%s\n", dlerror()); return 1; }
	int (*f)(int) = (int (*)(int))dlsym(h, "lib_fire");
	printf("%d\n", f(20));
	return dlclose(h);
}
C
cat >soakreg.d <<'D'
provider soakreg {
	probe tick(int);
};
D
cat >reg.c <<'C'
#include <stdio.h>
#include <unistd.h>
#include "soakreg.h"
int main(void)
{
	int sum = 0;
	for (int i = 0; i < 5; i++) {
		SOAKREG_TICK(i);
		sum += i;
		usleep(20000);
	}
	printf("%d\n", sum);
	return 0;
}
C
gcc -O2 -o sdt_prog sdt_prog.c && gcc -O2 -fPIC -shared -o libsoak.so lib.c &&
gcc -O2 -o loader loader.c -ldl &&
"$DTRACE" -h -s soakreg.d -o soakreg.h && gcc -O2 -I. -c -o reg.o reg.c &&
"$DTRACE" -G -s soakreg.d -o reg_prov.o reg.o &&
gcc -O2 -o reg reg.o reg_prov.o -ldl || { echo "soak: cannot build"; exit 1; }

daemon_start() {
	"$B/dtprobed" -F 2>>dtprobed.log &
	dpid=$!
	for _ in $(seq 60); do [ -S "$DTPROBED_SOCKET" ] && return 0; sleep 0.05; done
	echo "soak: dtprobed did not start"; exit 1
}
daemon_start

"$T" -s 100 0 >/dev/null 2>&1 &
prog=$!
"$DTRACE" -q -Z -p $prog -o trace.out -x switchrate=10hz -n '
BEGIN { printf("ready\n"); }
pid$target:a.out:add:entry /arg0 % 1000 == 0/ { printf("add %d %d\n", arg0, arg1); }
pid$target:a.out:add:entry { @calls[probefunc] = count(); }
pid$target:a.out:add:return { @vals[arg1 % 1000] = count(); }
pid$target:a.out:sum8:entry { @q = quantize(arg7 * timestamp % 100000); }
dtsoak*:::tick { printf("exec %d %d\n", pid, arg0); }
dtsoaklib*:::ping { printf("dlopen %d %d\n", pid, arg0); }
soakreg*:::tick { printf("reg %d %d\n", pid, arg0); }
tick-1s { trunc(@vals); trunc(@q); }' 2>dtrace.err &
dt=$!
for _ in $(seq 200); do grep -q '^ready$' trace.out 2>/dev/null && break; sleep 0.1; done
grep -q '^ready$' trace.out || { echo "soak: dtrace did not start:"; cat dtrace.err; exit 1; }

# churn KIND PERIOD COMMAND...: COMMAND every PERIOD seconds, each run's
# "pid status output" appended to KIND.log.
churn() {
	local kind=$1 period=$2 p out
	shift 2
	while :; do
		"$@" >"$kind.last" 2>&1 &
		p=$!
		wait $p
		echo "$p $? $(tr '\n' ' ' <"$kind.last")" >>"$kind.log"
		sleep "$period"
	done
}
: >exec.log; : >dlopen.log; : >reg.log
churn exec "$(awk -v ms="$SOAK_EXEC_MS" 'BEGIN { print ms / 1000 }')" ./sdt_prog &
churners=$!
churn dlopen 1 ./loader "$work/libsoak.so" &
churners="$churners $!"
churn reg 1 ./reg &
churners="$churners $!"
if [ "$SOAK_FLOOD" = 1 ]; then
	as_user /bin/sh -c 'while :; do
		for i in 1 2 3 4 5 6 7 8; do
			python3 u/dtp_send.py "$DTPROBED_SOCKET" flood &
		done
		for i in 1 2 3 4; do
			python3 u/dtp_send.py "$DTPROBED_SOCKET" sites 256 64 0 &
		done
		wait
	done' >/dev/null 2>&1 &	# (refused, as they must be: not the soak'"'"'s output)
	churners="$churners $!"
fi

proc_kb() { awk '/^VmRSS:/ { print $2 }' /proc/$1/status 2>/dev/null; }
proc_fds() { ls /proc/$1/fd 2>/dev/null | wc -l; }
proc_maps() { wc -l </proc/$1/maps 2>/dev/null; }
map_entries() { bpftool map dump pinned "$DTPROBED_MAP" 2>/dev/null | grep -c '^key:'; }
# the map's entries of processes gone since the last sample at least:
# those dtprobed should have removed by now (the flood's live
# registrations come and go by hundreds, and a process that has just
# exited keeps its entries for the moment dtprobed takes to hear of it, so
# neither the total nor the entries of dead processes at one instant say
# anything of a leak).  stale.pids: the dead processes of the last sample.
map_stale() {
	bpftool -j map dump pinned "$DTPROBED_MAP" 2>/dev/null | python3 -c '
import collections, json, os, sys
try:
    entries = json.load(sys.stdin)
except ValueError:
    entries = []
try:
    before = set(int(p) for p in open("stale.pids").read().split())
except OSError:
    before = set()
count = collections.Counter(
    int.from_bytes(bytes(int(b, 16) for b in e["key"][:4]), "little")
    for e in entries)
dead = [p for p in count if not os.path.exists("/proc/%d" % p)]
open("stale.pids", "w").write(" ".join(map(str, dead)))
print(sum(count[p] for p in dead if p in before))'
}

echo "soak: ${SOAK_TIME}s, dtrace pid $dt, sampling every ${SOAK_SAMPLE}s," \
	"dtprobed restarted every ${SOAK_RESTART}s in the first half"
# samples: seconds, dtrace kB fds maps, dtprobed kB fds, map entries, state
# files, map entries of processes gone a sample ago
: >samples
restarts=0
start=$(date +%s) last_restart=$(date +%s)
while :; do
	now=$(date +%s) el=$(( $(date +%s) - start ))
	[ $el -lt "$SOAK_TIME" ] || break
	sleep "$SOAK_SAMPLE"
	if [ $el -lt $((SOAK_TIME / 2)) ] &&
	   [ $((now - last_restart)) -ge "$SOAK_RESTART" ]; then
		kill -9 $dpid; wait $dpid 2>/dev/null
		sleep 0.3	# registrations meet no daemon meanwhile
		daemon_start
		restarts=$((restarts + 1)) last_restart=$now
	fi
	r=$(proc_kb $dt)
	if [ -z "$r" ]; then
		echo "soak: dtrace died after ${el}s:"; cat dtrace.err
		exit 1
	fi
	kill -0 $prog 2>/dev/null || { echo "soak: the traced program died"; exit 1; }
	kill -0 $dpid 2>/dev/null || { echo "soak: dtprobed died:"; tail dtprobed.log; exit 1; }
	echo "$el $r $(proc_fds $dt) $(proc_maps $dt) $(proc_kb $dpid)" \
		"$(proc_fds $dpid) $(map_entries) $(ls state 2>/dev/null | wc -l)" \
		"$(map_stale)" >>samples
done
kill $churners 2>/dev/null
wait $churners 2>/dev/null
sleep 2		# the last firings reach the output
kill -INT $dt
wait $dt
dtstatus=$?
cp samples "$B/soak.samples"
status=0
fail() { echo "soak: FAIL: $*"; status=1; }

# median of a list of numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
# growth COLUMN NAME LIMIT [FROM]: last quarter's median minus the first
# quarter's, of the samples from line FROM on (after warm-up).
growth() {
	local col=$1 name=$2 limit=$3 from=${4:-0} n skip rest q first last
	n=$(wc -l <samples)
	[ "$from" -gt 0 ] || from=$(( n / 10 ))
	rest=$(( n - from )); q=$(( rest / 4 )); [ $q -ge 1 ] || q=1
	first=$(tail -n +$((from + 1)) samples | head -n $q | awk -v c=$col '{ print $c }' | median)
	last=$(tail -n $q samples | awk -v c=$col '{ print $c }' | median)
	min=$(tail -n +$((from + 1)) samples | awk -v c=$col '{ print $c }' | sort -n | head -1)
	max=$(tail -n +$((from + 1)) samples | awk -v c=$col '{ print $c }' | sort -n | tail -1)
	echo "soak: $name: min $min, max $max; first quarter median $first," \
		"last quarter median $last (growth $((last - first)), allowed $limit)"
	[ $((last - first)) -le "$limit" ] || fail "$name grew"
}
n=$(wc -l <samples)
half=$(awk -v t=$((SOAK_TIME / 2)) '$1 >= t { print NR; exit }' samples)
echo "soak: $n samples, $restarts dtprobed restarts"
growth 2 "dtrace's resident size (kB)" "$SOAK_SLACK_KB"
growth 3 "dtrace's descriptors" 8
growth 4 "dtrace's memory mappings" 8
growth 5 "dtprobed's resident size (kB), second half" "$SOAK_SLACK_KB" "${half:-1}"
growth 6 "dtprobed's descriptors, second half" 8 "${half:-1}"
growth 9 "dtprobed's map entries of processes gone a sample ago" 8
growth 8 "dtprobed's state files" 8

# Losses: per run, the firings the session printed.
# lost KIND EXPECT FIRST: runs of KIND.log whose lines "KIND PID i" lack
# one of FIRST..EXPECT-1; and runs that did not exit 0 with OUTPUT.
lost() {
	awk -v kind=$1 -v n=$2 -v first=$3 -v want="${4:-}" '
	FILENAME == "trace.out" { if ($1 == kind) seen[$2 " " $3] = 1; next }
	{ runs++
	  if ($2 != 0 || (want != "" && $3 != want)) { harmed++; next }
	  for (i = first; i < n; i++) if (!((($1) " " i) in seen)) { lost++; break } }
	END { printf("%d %d %d\n", runs, lost, harmed) }' trace.out "$1.log"
}
for k in "exec 10 0" "dlopen 20 19 190" "reg 5 0 10"; do
	set -- $k
	read -r runs nlost harmed < <(lost "$@")
	echo "soak: $1: $runs programs, $nlost with a firing lost, $harmed harmed" \
		"(exit status or output changed)"
	[ "$nlost" = 0 ] || fail "$1: firings lost"
	[ "$harmed" = 0 ] || fail "$1: programs harmed"
done
if [ "$SOAK_FLOOD" = 1 ]; then
	echo "soak: flood: $(grep -c "refused registration" dtprobed.log)" \
		"refusals logged, $(grep -c 'suppressed' dtprobed.log) lines on" \
		"suppressed ones"
fi
[ "$dtstatus" = 0 ] || fail "dtrace exited with $dtstatus"
grep -v '^$' dtrace.err | sort | uniq -c | sort -rn | head -5
[ $status = 0 ] && echo "soak: PASS"
exit $status
