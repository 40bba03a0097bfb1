#!/bin/bash
# SPDX-License-Identifier: MIT
# -x aggpercpu end to end: profile-997 fires on two CPUs kept busy by a
# loop pinned to each; @[probename] = count() and a quantize() must show
# a [CPU N] line (or histogram) for both CPUs, whose values add up to the
# entry's total, in text and in JSON ("percpu").  Without the option,
# neither appears.
set -u
[ -x "$DTRACE" ] || exit 77
command -v python3 >/dev/null || exit 77
command -v taskset >/dev/null || exit 77
[ "$(nproc)" -ge 2 ] || exit 77
status=0
tmp=$(mktemp -d)
taskset -c 0 sh -c 'while :; do :; done' & busy0=$!
taskset -c 1 sh -c 'while :; do :; done' & busy1=$!
trap 'kill $busy0 $busy1; rm -rf "$tmp"' EXIT

prog='profile:::profile-997 { @[probename] = count(); @q = quantize(cpu); }
profile:::tick-300ms { exit(0); }'

fail() {
	echo "$1: failed"; cat "$tmp/out"; cat "$tmp/err"; status=1
}

# text: the count line, then [CPU N] lines in the same column
"$DTRACE" -q -x aggpercpu -n "$prog" >"$tmp/out" 2>"$tmp/err" ||
	fail "text run"
python3 - "$tmp/out" <<'PY' || fail "text"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
i = next(i for i, l in enumerate(lines) if l.startswith("  profile-997"))
total = int(lines[i].split()[-1])
cpus = {}
for l in lines[i + 1:]:
    m = re.match(r"    \[CPU (\d+)\] +(\d+)$", l)
    if not m:
        break
    assert len(l) == len(lines[i]), "value not in the total's column"
    cpus[int(m.group(1))] = int(m.group(2))
assert {0, 1} <= set(cpus), cpus
assert sum(cpus.values()) == total, (cpus, total)
# the quantize: one labelled histogram per CPU after the total's
hists = [l for l in lines if re.match(r"    \[CPU \d+\]$", l)]
assert hists == ["    [CPU 0]", "    [CPU 1]"], hists
PY

# JSON: "percpu" per entry, adding up to the total
"$DTRACE" -q -x aggpercpu -x oformat=json -n "$prog" >"$tmp/out" \
	2>"$tmp/err" || fail "json run"
python3 - "$tmp/out" <<'PY' || fail "json"
import json, sys
aggs = [o for o in map(json.loads, open(sys.argv[1]).read().splitlines())
        if o["type"] == "aggregation"]
count = next(a for a in aggs if a["function"] == "count")["data"][0]
per = {p["cpu"]: p["value"] for p in count["percpu"]}
assert {0, 1} <= set(per) and sum(per.values()) == count["value"], count
q = next(a for a in aggs if a["function"] == "quantize")["data"][0]
for p in q["percpu"]:
    assert [b["min"] for b in p["buckets"]] == [p["cpu"]], q
assert sum(b["count"] for p in q["percpu"] for b in p["buckets"]) == \
    sum(b["count"] for b in q["buckets"]), q
PY

# without the option: no per-CPU output at all
"$DTRACE" -q -n "$prog" >"$tmp/out" 2>"$tmp/err" || fail "plain run"
! grep -q 'CPU' "$tmp/out" || fail "plain text"
"$DTRACE" -q -x oformat=json -n "$prog" >"$tmp/out" 2>"$tmp/err" ||
	fail "plain json run"
! grep -q 'percpu' "$tmp/out" || fail "plain json"
exit $status
