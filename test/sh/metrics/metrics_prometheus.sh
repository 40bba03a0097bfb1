#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 120
# A fleet, for real: a Prometheus server (Debian's prometheus package),
# started here on 127.0.0.1 with a configuration and data directory of its
# own, scrapes two dtrace sessions tracing two processes, standing in for
# two hosts; PromQL through its HTTP API returns the totals the two
# processes' calls imply: sum by (key0) of the counters, and the quantiles
# of the two histograms added up bucket by bucket.
#   host A: serve(1, 5) 100 times, serve(2, 5) 50 times
#   host B: serve(1, 100) 100 times, serve(3, 100) 20 times
# so key 1 counts 200, key 2 50, key 3 20; the latencies are 150 times 5
# (bucket 4..7) and 120 times 100 (bucket 64..127): the median is
# 7 * 135/150 = 6.3 and the 0.9 quantile 63 + 64 * 93/120 = 112.6, as
# histogram_quantile() interpolates.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc curl python3
command -v prometheus >/dev/null ||
	{ echo "prometheus is not installed (apt-get install prometheus)"; exit 77; }

cp "$TESTDIR/sh/lib/metered.c" . && cc -O2 -o metered metered.c || exit 1

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# host NAME CALLS...: a session on its own process, its address in NAME.url
host() {
	local name=$1
	shift
	"$DTRACE" -q -x metrics=127.0.0.1:0 -c "./metered $name.done go $*" -n '
	pid$target::serve:entry { @calls[arg0] = count(); @lat = quantize(arg1); }
	' >"$name.out" 2>"$name.err" &
	echo $! >"$name.pid"
	wait_line "$name.err" '^dtrace: metrics at ' 600 || return 1
	sed -n 's|^dtrace: metrics at http://\([^/]*\)/metrics$|\1|p' \
		"$name.err" >"$name.url"
}

pids=()
cleanup() {
	touch go go.reset
	[ -n "${prom:-}" ] && kill "$prom" 2>/dev/null && wait "$prom" 2>/dev/null
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
}
trap cleanup EXIT

host a 1:5:100 2:5:50 || fail_run "host a did not start"
pids+=("$(cat a.pid)")
host b 1:100:100 3:100:20 || fail_run "host b did not start"
pids+=("$(cat b.pid)")

port=$(free_port)
cat >prometheus.yml <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: dtrace
    static_configs:
      - targets: ['$(cat a.url)', '$(cat b.url)']
YML
prometheus --config.file=prometheus.yml --storage.tsdb.path=data \
	--web.listen-address="127.0.0.1:$port" --log.level=warn \
	>prom.log 2>&1 &
prom=$!

# query PROMQL: the result as "labels value" lines, sorted
query() {
	curl -s -G "http://127.0.0.1:$port/api/v1/query" \
		--data-urlencode "query=$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
for s in sorted(r, key=lambda s: sorted(s["metric"].items())):
    labels = ",".join("%s=%s" % kv for kv in sorted(s["metric"].items()))
    print(labels, s["value"][1])
' 2>/dev/null
}

# until both hosts' calls are made and scraped, 60 s at most
want='key0=1 200
key0=2 50
key0=3 20'
for _ in $(seq 120); do
	[ "$(query 'sum by (key0) (dtrace_calls_total)')" = "$want" ] && break
	sleep 0.5
done
got=$(query 'sum by (key0) (dtrace_calls_total)')
[ "$got" = "$want" ] || { fail "sum by (key0): got '$got'"; cat prom.log; }
got=$(query 'histogram_quantile(0.5, sum by (le) (dtrace_lat_bucket))')
[ "$got" = " 6.3" ] || fail "median: got '$got'"
got=$(query 'histogram_quantile(0.9, sum by (le) (dtrace_lat_bucket))')
[ "$got" = " 112.6" ] || fail "0.9 quantile: got '$got'"
got=$(query 'count(up == 1)')
[ "$got" = " 2" ] || fail "targets up: got '$got'"
exit $status
