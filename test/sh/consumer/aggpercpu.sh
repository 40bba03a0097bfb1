#!/bin/bash
# SPDX-License-Identifier: MIT
# -x aggpercpu end to end: profile-997 fires on two CPUs kept busy by a
# loop pinned to each; @[probename] = count() and a quantize() must show
# a [CPU N] line (or histogram) for both CPUs, whose values add up to the
# entry's total, in text and in JSON ("percpu").  Without the option,
# neither appears.
#
# The loops run as SCHED_IDLE: they keep both CPUs from idling (a sample
# is only taken on a CPU that is not idle) but yield to anything else, so
# that dtrace and the checks are not slowed down by them; and they stop
# once the four sessions have run, before the checks.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd python3
need_cmd taskset
need_cmd chrt
[ "$(nproc)" -ge 2 ] || exit 77
status=0
tmp=$(mktemp -d)
taskset -c 0 chrt -i 0 sh -c 'while :; do :; done' & busy0=$!
taskset -c 1 chrt -i 0 sh -c 'while :; do :; done' & busy1=$!
stop_busy() {
	kill $busy0 $busy1 2>/dev/null
	wait $busy0 $busy1 2>/dev/null
}
trap 'stop_busy; rm -rf "$tmp"' EXIT

prog='profile:::profile-997 { @[probename] = count(); @q = quantize(cpu); }
profile:::tick-100ms { exit(0); }'

# failed NAME SESSION: NAME failed; SESSION's output and stderr shown.
failed() {
	fail "$1"; cat "$tmp/$2"; cat "$tmp/$2.err"
}

# The four sessions at once, each in the background: NAME OPTIONS...
session() {
	local name=$1
	shift
	"$DTRACE" -q "$@" -n "$prog" >"$tmp/$name" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
session text -x aggpercpu & pids=$!
session json -x aggpercpu -x oformat=json & pids="$pids $!"
session plain & pids="$pids $!"
session plain-json -x oformat=json & pids="$pids $!"
wait $pids
stop_busy
for name in text json plain plain-json; do
	[ "$(cat "$tmp/$name.rc")" = 0 ] || failed "$name run" "$name"
done

# One python3 checks both outputs (each start of python3 costs, and on
# some machines a version manager's shim makes it cost seconds), and says
# which failed.
if ! python3 - "$tmp/text" "$tmp/json" <<'PY'; then
import json, re, sys

def check_text(path):
    """The count line, then [CPU N] lines in the same column."""
    lines = open(path).read().split("\n")
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

def check_json(path):
    """"percpu" per entry, adding up to the total."""
    aggs = [o for o in map(json.loads, open(path).read().splitlines())
            if o["type"] == "aggregation"]
    count = next(a for a in aggs if a["function"] == "count")["data"][0]
    per = {p["cpu"]: p["value"] for p in count["percpu"]}
    assert {0, 1} <= set(per) and sum(per.values()) == count["value"], count
    q = next(a for a in aggs if a["function"] == "quantize")["data"][0]
    for p in q["percpu"]:
        assert [b["min"] for b in p["buckets"]] == [p["cpu"]], q
    assert sum(b["count"] for p in q["percpu"] for b in p["buckets"]) == \
        sum(b["count"] for b in q["buckets"]), q

failed = False
for name, check, path in (("text", check_text, sys.argv[1]),
                          ("json", check_json, sys.argv[2])):
    try:
        check(path)
    except Exception as e:
        print(f"{name}: {e!r}")
        failed = True
sys.exit(1 if failed else 0)
PY
	echo "text output:"; cat "$tmp/text"
	echo "json output:"; cat "$tmp/json"
	status=1
fi

# without the option: no per-CPU output at all
! grep -q 'CPU' "$tmp/plain" || failed "plain text" plain
! grep -q 'percpu' "$tmp/plain-json" || failed "plain json" plain-json
exit $status
