#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/metrics_scrape.sh: what a Prometheus scrape of -x metrics costs
# with many series.  A program calls serve(i) for i below N (default
# 100,000), once each, and waits; dtrace counts @calls[arg0] and serves
# them; the benchmark times RUNS scrapes (default 5) with curl and prints
# the median time, the size of the answer and the series in it.  Then,
# while scrapes follow one another without pause, the program calls
# serve() 2,000,000 times more and the benchmark prints the time per call
# beside the same calls with no scrape: a scrape runs in dtrace's loop,
# never in the probes, so the two should be alike.
#
#   sudo bench/metrics_scrape.sh [N] [RUNS]      (B=build-dir, default build/)
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${B:-build}
[ "${B#/}" = "$B" ] && B=$ROOT/$B
N=${1:-100000}
RUNS=${2:-5}
DTRACE=$B/dtrace
export DTRACE_PLUGIN_PATH=$B/plugins
command -v curl >/dev/null || { echo "bench: curl is missing" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'touch "$tmp/go" "$tmp/go2"; wait; rm -rf "$tmp"' EXIT
cat >"$tmp/many.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
__attribute__((noinline)) int serve(int i)
{
	__asm__ volatile("" ::: "memory");
	return i;
}
static void wait_for(const char *p)
{
	struct timespec ts = { 0, 10 * 1000000 };
	while (access(p, F_OK) != 0)
		nanosleep(&ts, NULL);
}
static double calls(int n)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++)
		serve(i & 1023);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}
int main(int argc, char **argv)
{
	int n = atoi(argv[1]);
	for (int i = 0; i < n; i++)
		serve(i);
	close(open(argv[2], O_CREAT | O_WRONLY, 0644));
	wait_for(argv[3]);
	printf("quiet %.0f\n", calls(2000000));
	fflush(stdout);
	close(open(argv[4], O_CREAT | O_WRONLY, 0644));
	wait_for(argv[5]);
	printf("scraped %.0f\n", calls(2000000));
	return 0;
}
C
cc -O2 -o "$tmp/many" "$tmp/many.c" || exit 2

"$DTRACE" -q -x aggsize=256m -x metrics=127.0.0.1:0 \
	-c "$tmp/many $N $tmp/filled $tmp/go $tmp/quiet $tmp/go2" \
	-n 'pid$target::serve:entry { @calls[arg0] = count(); }' \
	>"$tmp/out" 2>"$tmp/err" &
for _ in $(seq 600); do [ -e "$tmp/filled" ] && break; sleep 0.1; done
url=$(sed -n 's|^dtrace: metrics at \(http://[^ ]*\)$|\1|p' "$tmp/err")
[ -n "$url" ] || { echo "bench: no metrics address"; cat "$tmp/err"; exit 2; }

for r in $(seq "$RUNS"); do
	curl -s -o "$tmp/m" -w '%{time_total}\n' "$url"
done | sort -n | awk '{ t[NR] = $1 } END { printf "scrape of %s series: %.3f s (median of %d)\n", "'"$N"'", t[int((NR + 1) / 2)], NR }'
echo "answer: $(wc -c <"$tmp/m") bytes, $(grep -c '^dtrace_calls_total' "$tmp/m") series"

touch "$tmp/go"
for _ in $(seq 600); do [ -e "$tmp/quiet" ] && break; sleep 0.1; done
( while [ ! -e "$tmp/go2" ]; do curl -s -o /dev/null "$url"; done ) &
scraper=$!
sleep 0.5
touch "$tmp/go2"
wait "$scraper"
wait
awk '/^quiet/ { q = $2 } /^scraped/ { s = $2 }
     END { printf "per call: %d ns with no scrape, %d ns while scraping\n", q, s }' "$tmp/out"
