#!/bin/bash
# SPDX-License-Identifier: MIT
# dtrace's -x oformat=json lines through a real log pipeline: the two
# rsyslog configurations of the README (imfile + omfwd on the traced side,
# imtcp + omfile on the collector), run as two private rsyslogd instances
# (own configuration, pid file, work directory; the collector on a free
# port of 127.0.0.1; nothing of the system's rsyslog is touched), carry the
# records of the traced demo program, and every record arrives intact, in
# order, one valid JSON object a line.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
RSYSLOGD=$(command -v rsyslogd || echo /usr/sbin/rsyslogd)
[ -x "$RSYSLOGD" ] || { echo "no rsyslogd (apt-get install rsyslog)"; exit 77; }
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
ROOT=$TESTDIR/..
# W, status, fail, wait_for, bg (killed at exit).  Its dtprobed variables
# point into the scratch directory: no system daemon is used either.
. "$TESTDIR/usdt/daemon_lib.sh"

# readme_block FIRST-LINE: the README's fenced block that starts with it.
readme_block() {
	awk -v first="$1" '$0 == first { on = 1 } on && /^```$/ { exit } on' \
		"$ROOT/README.md"
}

# start_rsyslogd NAME: a private instance of NAME.body, its global
# settings first (not in a pipeline: bg must record the pid here).
start_rsyslogd() {
	local name=$1
	mkdir -p "$W/$name.work"
	{ echo "global(workDirectory=\"$W/$name.work\" maxMessageSize=\"64k\")"
	  cat "$W/$name.body"; } >"$W/$name.conf"
	"$RSYSLOGD" -N1 -f "$W/$name.conf" >"$W/$name.check" 2>&1 ||
		{ cat "$W/$name.check"; fail "$name: configuration refused"; exit 1; }
	bg "$RSYSLOGD" -n -f "$W/$name.conf" -i "$W/$name.pid" >>"$W/$name.log" 2>&1
}

readme_block '# /etc/rsyslog.d/dtrace-collect.conf (collector)' |
	sed -e "s|port=\"10514\"|port=\"0\" listenPortFileName=\"$W/port\"|" \
	    -e "s|/var/log/dtrace/collected.json|$W/collected.json|" >collector.body
start_rsyslogd collector
wait_for 10 test -s "$W/port" || { cat collector.log; fail "collector did not listen"; exit 1; }
port=$(cat "$W/port")

: >trace.json
readme_block '# /etc/rsyslog.d/dtrace-forward.conf (traced machine)' |
	sed -e "s|/var/log/dtrace/trace.json|$W/trace.json|" \
	    -e "s|collector.example|127.0.0.1|" -e "s|port=\"10514\"|port=\"$port\"|" \
	    >forward.body
start_rsyslogd forward
grep -q 'imfile' forward.conf && grep -q omfwd forward.conf &&
	grep -q imtcp collector.conf || { fail "README blocks not found"; exit 1; }

# The demo's trace with one record per request (a thousand records,
# aggregations at the end), and a record with the characters JSON escapes.
"$DTRACE" -x oformat=json -q -s "$ROOT/demo/demo.d" \
	-n 'pid$target::handle_request:entry { trace(arg1); }' \
	-n 'BEGIN { printf("quote \" backslash \\ tab \t caf\303\251\n"); }' \
	-c "$B/test/progs/demo 1" -o "$W/trace.json" >demo.out 2>dtrace.err ||
	{ cat dtrace.err; fail "dtrace"; exit 1; }
n=$(wc -l <trace.json)
[ "$n" -gt 100 ] || fail "only $n records traced"

arrived() { [ -f collected.json ] && [ "$(wc -l <collected.json)" -ge "$n" ]; }
wait_for 20 arrived ||
	fail "$(wc -l <collected.json 2>/dev/null || echo 0) of $n records arrived"
cmp trace.json collected.json >/dev/null ||
	{ fail "records changed on the way"; diff trace.json collected.json | head -n 6; }
python3 -c '
import json, sys
for i, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    try:
        json.loads(line)
    except ValueError as e:
        sys.exit("line %d: %s" % (i, e))
' collected.json || fail "a collected line is not JSON"
grep -qF '"output":"quote \" backslash \\ tab \t café\n"' collected.json ||
	fail "escaped record: $(grep -F quote collected.json)"
grep -q '"type":"aggregation"' collected.json || fail "no aggregation record"

exit $status
