#!/bin/bash
# SPDX-License-Identifier: MIT
# test/soak/soak.sh: dtrace traces for SOAK_TIME seconds (default an hour)
# and its memory must stay flat.  Run by `make soak` (root), never by make
# check.
#
# The session: a program calling its functions without end (pid entry and
# return probes, printf() to -o /dev/null, aggregations keyed by a value
# that keeps changing, cleared every second), and "dtsoak*" USDT probes
# that cover programs not started yet, while a new short-lived program with
# such probes is started every SOAK_EXEC_MS ms (the exec watch and the exec
# gate at work).  dtrace's resident size is sampled every SOAK_SAMPLE
# seconds; after the first tenth of the run (warm-up), the median of the
# last quarter of the samples may exceed the median of the first quarter
# by at most SOAK_SLACK_KB.  Prints the samples' summary either way and
# keeps them in $B/soak.samples (seconds, kB); exit 1 when the memory grew,
# or when dtrace or the program died.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
DTRACE=$B/dtrace
export DTRACE_PLUGIN_PATH=$B/plugins
SOAK_TIME=${SOAK_TIME:-3600}
SOAK_SAMPLE=${SOAK_SAMPLE:-10}
SOAK_EXEC_MS=${SOAK_EXEC_MS:-200}
SOAK_SLACK_KB=${SOAK_SLACK_KB:-2048}
T=$B/test/progs/pidtarget
[ -x "$DTRACE" ] && [ -x "$T" ] || { echo "soak: build first (make)"; exit 1; }
[ "$SOAK_SAMPLE" -lt "$SOAK_TIME" ] || SOAK_SAMPLE=$((SOAK_TIME / 4))

work=$(mktemp -d)
cleanup() {
	kill $prog $dt $spawner 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1
# a program of its own, with a provider of its own: the probes of the
# tests' programs (sdt_test) stay untouched for tests that run meanwhile
cat >sdt_prog.c <<'C'
#include <sys/sdt.h>
int main(int argc, char **argv)
{
	for (int i = 0; i < 10; i++)
		DTRACE_PROBE2(dtsoak, tick, i, argc);
	return argv[0] == 0;
}
C
gcc -O2 -o sdt_prog sdt_prog.c || exit 1

"$T" -s 100 0 >/dev/null 2>&1 &
prog=$!
"$DTRACE" -q -Z -p $prog -o /dev/null -x switchrate=10hz -n '
pid$target:a.out:add:entry { printf("%d %d\n", arg0, arg1); @calls[probefunc] = count(); }
pid$target:a.out:add:return { @vals[arg1 % 1000] = count(); }
pid$target:a.out:sum8:entry { @q = quantize(arg7 * timestamp % 100000); }
dtsoak*:::tick { @usdt[probename] = count(); }
tick-1s { trunc(@vals); trunc(@q); }' 2>dtrace.err &
dt=$!
( while :; do ./sdt_prog >/dev/null 2>&1; sleep "$(awk -v ms="$SOAK_EXEC_MS" 'BEGIN { print ms / 1000 }')"; done ) &
spawner=$!

rss_kb() { awk '/^VmRSS:/ { print $2 }' /proc/$dt/status 2>/dev/null; }
echo "soak: ${SOAK_TIME}s, dtrace pid $dt, sampling every ${SOAK_SAMPLE}s"
: >samples
start=$(date +%s)
while [ $(( $(date +%s) - start )) -lt "$SOAK_TIME" ]; do
	sleep "$SOAK_SAMPLE"
	r=$(rss_kb)
	if [ -z "$r" ]; then
		echo "soak: dtrace died after $(( $(date +%s) - start ))s:"; cat dtrace.err
		exit 1
	fi
	kill -0 $prog 2>/dev/null || { echo "soak: the traced program died"; exit 1; }
	echo "$(( $(date +%s) - start )) $r" >>samples
done
cp samples "$B/soak.samples"

# median of a list of numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
n=$(wc -l <samples)
skip=$(( n / 10 ))
rest=$(( n - skip ))
q=$(( rest / 4 )); [ $q -ge 1 ] || q=1
first=$(tail -n +$((skip + 1)) samples | head -n $q | awk '{ print $2 }' | median)
last=$(tail -n $q samples | awk '{ print $2 }' | median)
min=$(awk '{ print $2 }' samples | sort -n | head -1)
max=$(awk '{ print $2 }' samples | sort -n | tail -1)
echo "soak: $n samples of dtrace's RSS: min ${min} kB, max ${max} kB;" \
	"after warm-up, first quarter median ${first} kB, last quarter median ${last} kB" \
	"(growth $(( last - first )) kB, allowed ${SOAK_SLACK_KB} kB)"
grep -v '^$' dtrace.err | head -5
if [ $(( last - first )) -gt "$SOAK_SLACK_KB" ]; then
	echo "soak: FAIL: dtrace's memory grew"
	exit 1
fi
echo "soak: PASS"
