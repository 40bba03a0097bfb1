#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/startup.sh: start-up cost of a session that does nothing:
#   dtrace -n 'BEGIN { exit(0); }'
# side by side with bpftrace -e 'BEGIN { exit(); }' when bpftrace is
# installed.  Prints the median wall time and the median peak RSS of N runs
# (default 7) of each, and the ratios.  Targets: ours at least 5x faster
# than bpftrace, and under 20 MB.  Then the start-up of
# `BEGIN { exit(0); }` and of `myapp*:::tick` (a glob of providers, which
# covers every process) with 100, 500 and 2,000 sleeping processes more,
# started by the benchmark and killed after (needs perl).
#
#   sudo bench/startup.sh [RUNS]          (B=build-dir, default build/)
#
# Needs root (BPF) and GNU time (/usr/bin/time, Debian package "time") for
# the peak RSS.  Exit status 1 when a target is missed.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${B:-build}
[ "${B#/}" = "$B" ] && B=$ROOT/$B
RUNS=${1:-7}
DTRACE=$B/dtrace
export DTRACE_PLUGIN_PATH=$B/plugins

if [ ! -x /usr/bin/time ]; then
	echo "bench: /usr/bin/time is missing (apt-get install time)" >&2
	exit 2
fi
if [ ! -x "$DTRACE" ]; then
	echo "bench: $DTRACE does not exist: run make first" >&2
	exit 2
fi

# median of the numbers on stdin
median() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# measure NAME CMD...: run CMD $RUNS times; sets WALL_MS and RSS_KB
# (medians).  A failing run stops the benchmark with its stderr.
measure() {
	local name=$1 i t0 t1 tmp
	shift
	tmp=$(mktemp -d)
	"$@" >/dev/null 2>&1	# warm the page cache
	for ((i = 0; i < RUNS; i++)); do
		t0=$(date +%s%N)
		if ! /usr/bin/time -f '%M' -o "$tmp/rss" "$@" >/dev/null \
			2>"$tmp/err"; then
			echo "bench: $name failed:" >&2
			head -n 20 "$tmp/err" >&2
			rm -rf "$tmp"
			exit 1
		fi
		t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 )) >>"$tmp/wall"
		tail -n 1 "$tmp/rss" >>"$tmp/rsss"
	done
	WALL_MS=$(median <"$tmp/wall" | awk '{ printf "%.1f", $1 / 1000 }')
	RSS_KB=$(median <"$tmp/rsss")
	rm -rf "$tmp"
}

printf '%-10s %12s %12s   (median of %d runs)\n' "" "wall ms" "peak RSS MB" "$RUNS"

measure dtrace "$DTRACE" -q -n 'BEGIN { exit(0); }'
our_ms=$WALL_MS our_kb=$RSS_KB
printf '%-10s %12s %12.1f\n' dtrace "$our_ms" "$(awk -v k="$our_kb" 'BEGIN { print k / 1024 }')"

# sleepers_start N: N sleeping processes forked by one perl (N shells would
# take seconds), which kills them at SIGTERM; sets SLEEPERS_PID.
sleepers_start() {
	local ready
	ready=$(mktemp)
	perl -e '$| = 1; my @kids;
		for (1 .. $ARGV[0]) {
			my $p = fork() // die "fork: $!";
			if ($p == 0) { sleep 600; exit 0 }
			push @kids, $p;
		}
		$SIG{TERM} = sub { kill "TERM", @kids; exit 0 };
		print "ready\n"; sleep 600;' "$1" >"$ready" &
	SLEEPERS_PID=$!
	until grep -q ready "$ready"; do sleep 0.1; done
	rm -f "$ready"
}

sleepers_stop() {
	kill "$SLEEPERS_PID" 2>/dev/null
	wait "$SLEEPERS_PID" 2>/dev/null
}
trap sleepers_stop EXIT

# Start-up against the number of processes: a description no USDT probe
# can match (the usdt provider is not asked) and one that covers every
# process (myapp*:::tick: each process's maps are read, each file once).
echo "start-up with N more sleeping processes (wall ms):"
printf '%8s %12s %12s\n' N "BEGIN" "myapp*:::tick"
for n in 100 500 2000; do
	sleepers_start "$n"
	measure begin "$DTRACE" -q -n 'BEGIN { exit(0); }'
	begin_ms=$WALL_MS
	measure glob "$DTRACE" -q -Z -n 'myapp*:::tick {} BEGIN { exit(0); }'
	printf '%8d %12s %12s\n' "$n" "$begin_ms" "$WALL_MS"
	sleepers_stop
done

status=0
if awk -v kb="$our_kb" 'BEGIN { exit !(kb >= 20 * 1024) }'; then
	echo "MISSED: dtrace uses 20 MB or more"
	status=1
fi

if command -v bpftrace >/dev/null 2>&1; then
	measure bpftrace bpftrace -e 'BEGIN { exit(); }'
	printf '%-10s %12s %12.1f\n' bpftrace "$WALL_MS" "$(awk -v k="$RSS_KB" 'BEGIN { print k / 1024 }')"
	ratio=$(awk -v a="$WALL_MS" -v b="$our_ms" 'BEGIN { printf "%.1f", a / b }')
	mem=$(awk -v a="$RSS_KB" -v b="$our_kb" 'BEGIN { printf "%.1f", a / b }')
	echo "ratio: dtrace starts ${ratio}x faster than bpftrace, uses ${mem}x less memory"
	if awk -v r="$ratio" 'BEGIN { exit !(r < 5) }'; then
		echo "MISSED: less than 5x faster than bpftrace"
		status=1
	fi
else
	echo "bpftrace is not installed: no comparison"
fi
exit $status
