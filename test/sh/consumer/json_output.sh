#!/bin/bash
# SPDX-License-Identifier: MIT
# -x oformat=json end to end: BEGIN scripts with trace, printf, exit,
# count/sum/quantize aggregations, printa, strings that need escaping and
# unsigned 64-bit values; every line of stdout must parse as one JSON
# object, and the fields and values are checked with python3.  Also: the
# text output of the same script is unchanged by the option's default.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd python3

# check NAME: run python3 code on the lines of file "out" (a list `objs`
# of parsed objects); any exception or failed assert fails the test.
check() {
	local name=$1 code=$2
	if ! python3 -c '
import json, sys
lines = open("out", encoding="utf-8").read().split("\n")
assert lines[-1] == "", "output does not end with a newline"
objs = []
for i, l in enumerate(lines[:-1]):
    o = json.loads(l)
    assert isinstance(o, dict), "line %d is not an object" % (i + 1)
    objs.append(o)
'"$code" 2>pyerr; then
		echo "$name: failed"; cat pyerr; echo "--- stdout"; cat out
		echo "--- stderr"; cat err; status=1
	fi
}

"$DTRACE" -x oformat=json -n 'BEGIN {
	trace(1);
	trace("a\"b\\c\td");
	trace((uint64_t)-1);
	printf("%d %s\n", 3, "x");
	@c["x"] = count(); @c["x"] = count(); @c["y"] = count();
	@s = sum(-5); @s = sum(2);
	@q = quantize(0); @q = quantize(5); @q = quantize(6); @q = quantize(-3);
	exit(4);
}' >out 2>err
rc=$?
[ $rc = 4 ] || { echo "exit status $rc, expected 4"; cat err; status=1; }
check basic '
assert len(objs) == 4, objs
p = objs[0]
assert p["type"] == "probe", p
assert isinstance(p["cpu"], int) and p["id"] >= 1 and p["clause"] == 0
assert p["probe"] == {"provider": "dtrace", "module": "", "function": "",
                      "name": "BEGIN"}, p["probe"]
a = p["actions"]
assert a[0] == {"action": "trace", "value": 1}, a[0]
assert a[1] == {"action": "trace", "value": "a\"b\\c\td"}, a[1]
assert a[2] == {"action": "trace", "value": 18446744073709551615}, a[2]
assert a[3] == {"action": "printf", "format": "%d %s\n", "output": "3 x\n",
                "args": [3, "x"]}, a[3]
assert a[4] == {"action": "exit", "status": 4}, a[4]
assert len(a) == 5
aggs = {o["name"]: o for o in objs[1:]}
for o in objs[1:]:
    assert o["type"] == "aggregation" and o["trigger"] == "exit", o
c = aggs["c"]
assert c["function"] == "count"
assert c["data"] == [{"keys": ["y"], "value": 1},
                     {"keys": ["x"], "value": 2}], c
s = aggs["s"]
assert s["function"] == "sum" and s["data"] == [{"keys": [], "value": -3}], s
q = aggs["q"]
assert q["function"] == "quantize"
assert q["data"] == [{"keys": [], "buckets": [
    {"min": -3, "max": -2, "count": 1},
    {"min": 0, "max": 0, "count": 1},
    {"min": 4, "max": 7, "count": 2}]}], q
'

# -q changes nothing in JSON; printa snapshots follow their record and are
# not printed again at exit; no blank line anywhere.
"$DTRACE" -q -x oformat=json -n 'BEGIN {
	@a[1, "k"] = sum(10);
	@b = avg(4); @b = avg(7);
	printa(@a);
	printa("%d %s %@d\n", @a);
	exit(0);
}' >out 2>err
rc=$?
[ $rc = 0 ] || { echo "printa: exit status $rc"; cat err; status=1; }
check printa '
assert [o["type"] for o in objs] == ["probe", "aggregation", "aggregation",
                                      "aggregation"], objs
acts = objs[0]["actions"]
assert acts[0] == {"action": "printa", "aggregations": ["a"]}, acts[0]
assert acts[1] == {"action": "printa", "aggregations": ["a"],
                   "format": "%d %s %@d\n", "output": "1 k 10\n"}, acts[1]
assert acts[2] == {"action": "exit", "status": 0}, acts[2]
for o in objs[1:3]:
    assert o["trigger"] == "printa" and o["name"] == "a", o
    assert o["data"] == [{"keys": [1, "k"], "value": 10}], o
b = objs[3]
assert b["trigger"] == "exit" and b["name"] == "b" and b["function"] == "avg"
assert b["data"] == [{"keys": [], "value": 5, "count": 2, "sum": 11}], b
'

# The default stays text: the same kind of script prints DTrace's text.
"$DTRACE" -q -n 'BEGIN { @c["x"] = count(); printf("%d\n", 3); exit(0); }' \
	>out 2>err
expected=$(printf '3\n\n  x%66s\n' 1)
if [ "$(cat out)" != "$expected" ]; then
	echo "text output changed:"; cat -A out; status=1
fi
"$DTRACE" -q -x oformat=text -n 'BEGIN { printf("t\n"); exit(0); }' \
	>out 2>err
if [ "$(cat out)" != "t" ]; then
	echo "oformat=text:"; cat -A out; status=1
fi

exit $status
