#!/bin/bash
# SPDX-License-Identifier: MIT
# -x metrics serves the aggregations at /metrics in the OpenMetrics text
# format while tracing: count() a counter, sum() a gauge, quantize() a
# cumulative histogram, keys as labels; clear() brings the values back to
# 0 (a reset), trunc() removes the series; 20 scrapes at once all answered alike; other paths and
# methods, and a request that is no HTTP, refused without harm to the
# next scrape; a port in use and a bad address refused with one line
# naming the option, before tracing; JSON output unchanged beside it.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc curl

cp "$TESTDIR/sh/lib/metered.c" . && cc -O2 -o metered metered.c || exit 1

"$DTRACE" -q -x oformat=json -x metrics=127.0.0.1:0 \
	-c './metered done go 1:5:30 2:100:10' -n '
pid$target::serve:entry { @calls[arg0] = count(); @lat = quantize(arg1);
	@total = sum(arg1); }
pid$target::reset:entry { clear(@calls); trunc(@total); }' >out 2>err &
dt=$!
wait_line err '^dtrace: metrics at http://' 600 || fail_run "no address said"
url=$(sed -n 's|^dtrace: metrics at \(http://[^ ]*\)$|\1|p' err)
for _ in $(seq 600); do [ -e done ] && break; sleep 0.05; done

curl -s -D hdr -o m1 "$url" || fail "scrape failed"
grep -qi '^content-type: application/openmetrics-text; version=1.0.0' hdr ||
	fail "content type: $(grep -i content-type hdr)"
grep -qx '# TYPE dtrace_calls counter' m1 || fail "the counter's type"
grep -qx 'dtrace_calls_total{key0="1"} 30' m1 || fail "the counter, key 1"
grep -qx 'dtrace_calls_total{key0="2"} 10' m1 || fail "the counter, key 2"
grep -qx '# TYPE dtrace_lat histogram' m1 || fail "the histogram's type"
grep -qx 'dtrace_lat_bucket{le="7"} 30' m1 || fail "bucket le=7"
grep -qx 'dtrace_lat_bucket{le="63"} 30' m1 || fail "bucket le=63"
grep -qx 'dtrace_lat_bucket{le="127"} 40' m1 || fail "bucket le=127"
grep -qx 'dtrace_lat_bucket{le="+Inf"} 40' m1 || fail "bucket +Inf"
grep -qx 'dtrace_lat_count 40' m1 || fail "histogram count"
grep -q 'dtrace_lat_bucket{le="3"}' m1 && fail "a bucket below the values"
grep -qx 'dtrace_total 1150' m1 || fail "the gauge"
[ "$(tail -1 m1)" = "# EOF" ] || fail "no # EOF at the end"

# 20 scrapes at once: one answer each, all alike
for i in $(seq 20); do curl -s -o "c$i" "$url" & done
wait $(jobs -p | grep -v "^$dt$") 2>/dev/null
for i in $(seq 20); do
	cmp -s "c$i" m1 || { fail "concurrent scrape $i differs"; break; }
done

# what is not a scrape
[ "$(curl -s -o /dev/null -w '%{http_code}' "${url%/metrics}/other")" = 404 ] ||
	fail "another path not 404"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST -d x "$url")" = 405 ] ||
	fail "POST not 405"
hostport=${url#http://}; hostport=${hostport%/metrics}
exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}" &&
	printf 'NOT HTTP AT ALL\r\n\r\n' >&3 && timeout 5 cat <&3 >/dev/null
exec 3>&-
curl -s -o m2 "$url" && cmp -s m1 m2 || fail "scrape after garbage"

# the port in use, and no address: refused, before tracing
"$DTRACE" -q -x metrics="$hostport" -n 'BEGIN { exit(0); }' >o2 2>e2
rc=$?
[ $rc = 1 ] && grep -qx "dtrace: failed to serve -x metrics=$hostport: Address already in use" e2 ||
	fail "port in use: exit $rc, $(cat e2)"
"$DTRACE" -q -x metrics=nowhere:99999 -n 'BEGIN { exit(0); }' >o2 2>e2
rc=$?
[ $rc = 1 ] && grep -q '^dtrace: failed to serve -x metrics=nowhere:99999: ' e2 ||
	fail "bad address: exit $rc, $(cat e2)"

# clear(): the counter goes back to 0, which Prometheus takes as a reset
touch go
for _ in $(seq 600); do [ -e done.reset ] && break; sleep 0.05; done
curl -s -o m3 "$url"
grep -qx 'dtrace_calls_total{key0="1"} 0' m3 || { fail "after clear()"; cat m3; }
grep -q '^dtrace_total ' m3 && fail "after trunc(), a series of @total is left"
touch go.reset
wait $dt || fail "dtrace exit $?"
grep -q '"aggregation"' out || { fail "JSON output without aggregations"; head -3 out; }
exit $status
