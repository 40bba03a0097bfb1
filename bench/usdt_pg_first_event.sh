#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/usdt_pg_first_event.sh: time from starting the tracer to its first
# event on PostgreSQL's <sys/sdt.h> probes (issue 5).
#
# Starts a PostgreSQL 15 server in a temporary directory (as the
# unprivileged user nobody, private socket directory, no TCP), keeps one
# psql session sending "select 1;" every INTERVAL ms (default 5), then
# times, RUNS times (default 7, after one untimed warm-up run):
#   dtrace -q -n 'postgresql*:::query-start
#       { printf("%s\n", copyinstr(arg0)); exit(0); }'
# and, when bpftrace is installed,
#   bpftrace -q -e 'usdt:.../postgres:postgresql:query__start
#       { printf("%s\n", str(arg0)); exit(); }'
# Each run reports the wall time from launching the tracer to the moment
# its first "select 1;" line arrives on the pipe we read (so the figure
# includes the tracer's own flushing), and to the tracer's exit.  Prints
# the medians and the ratios bpftrace / dtrace.  The query interval adds up
# to INTERVAL ms to each first-event figure, the same for both tracers.
#
#   sudo bench/usdt_pg_first_event.sh [RUNS [INTERVAL]]   (B=build-dir)
#
# Invariant: every process started here (server, client, feeder, tracer)
# is stopped and the temporary directory removed on every exit path (trap).
# Exit status 0; 1 when dtrace never shows an event; 2 when something is
# missing (root, the build, PostgreSQL 15, the user nobody, runuser).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RUNS=${1:-7}
INTERVAL=${2:-5}
TIMEOUT=${TIMEOUT:-30}	# seconds a tracer may take to show its first event
PG=/usr/lib/postgresql/15/bin
QUERY='select 1;'
need_root
need_dtrace
for p in postgres initdb pg_ctl psql; do
	if [ ! -x "$PG/$p" ]; then
		echo "bench: $PG/$p is missing (PostgreSQL 15)" >&2
		exit 2
	fi
done
if ! id nobody >/dev/null 2>&1 || ! command -v runuser >/dev/null; then
	echo "bench: needs the user nobody and runuser" >&2
	exit 2
fi

W=$(mktemp -d /tmp/bench_pg.XXXXXX)
chown nobody "$W"
chmod 755 "$W"
feeder='' client='' server_up='' tracer=''

as_pg() { runuser -u nobody -- "$@"; }

# stop_tracer: ends the running tracer, if any.
stop_tracer() {
	local pid=$tracer
	[ -n "$pid" ] || return 0
	tracer=
	kill -INT "$pid" 2>/dev/null
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# shellcheck disable=SC2317  # (run by the EXIT trap)
cleanup() {
	stop_tracer
	# The feeder first: psql then reads end of file and leaves.
	[ -n "$feeder" ] && kill "$feeder" 2>/dev/null && wait "$feeder" 2>/dev/null
	[ -n "$server_up" ] &&
		as_pg "$PG/pg_ctl" -D "$W/data" -m immediate stop >/dev/null 2>&1
	[ -n "$client" ] && kill "$client" 2>/dev/null && wait "$client" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_server() {
	if ! as_pg "$PG/initdb" -D "$W/data" -A trust -U nobody \
		>"$W/initdb.log" 2>&1; then
		echo "bench: initdb failed:" >&2
		tail -n 20 "$W/initdb.log" >&2
		exit 2
	fi
	server_up=1
	if ! as_pg "$PG/pg_ctl" -D "$W/data" -l "$W/server.log" -w \
		-o "-k $W -c listen_addresses=''" start >/dev/null; then
		echo "bench: the server did not start:" >&2
		tail -n 20 "$W/server.log" >&2
		exit 2
	fi
}

# start_client: one psql session reading its queries from a fifo that a
# feeder subshell writes one query to every INTERVAL ms.  (Only the feeder
# holds the writing end, so nothing else keeps psql alive.)
start_client() {
	mkfifo "$W/in"
	chmod 666 "$W/in"
	as_pg "$PG/psql" -h "$W" -U nobody -d postgres -X -q -t -A \
		<"$W/in" >/dev/null 2>"$W/client.err" &
	client=$!
	local pause
	pause=$(awk -v ms="$INTERVAL" 'BEGIN { printf "%.3f", ms / 1000 }')
	# The pause is a read with a timeout on a fifo nobody writes to, not
	# sleep(1): a fork and exec every few ms would make dtrace, which
	# watches new processes for postgresql*, inspect each of them.
	mkfifo "$W/idle"
	(
		trap 'exit 0' TERM
		exec 4<>"$W/idle"
		while :; do
			echo "$QUERY"
			read -r -t "$pause" -u 4 _
		done
	) >"$W/in" &
	feeder=$!
	sleep 0.3
	if ! kill -0 "$client" 2>/dev/null; then
		echo "bench: psql did not stay connected:" >&2
		cat "$W/client.err" >&2
		exit 2
	fi
}

# run_once CMD...: one timed run; sets FIRST_US and TOTAL_US, both empty
# when no event came within TIMEOUT seconds (the tracer's stderr is then in
# $W/tracer.err).  The tracer's stdout is a pipe that this shell reads (a
# coprocess, run in this shell so that cleanup knows its pid).
run_once() {
	local t0 t1 t2 line first=
	FIRST_US='' TOTAL_US=''
	t0=$(now_us)
	coproc TR { exec "$@" 2>"$W/tracer.err"; }
	tracer=$TR_PID
	# Lines other than the query (a banner) are skipped.
	while read -r -t "$TIMEOUT" -u "${TR[0]}" line; do
		if [ "$line" = "$QUERY" ]; then
			first=1
			break
		fi
	done
	t1=$(now_us)
	if [ -z "$first" ]; then
		stop_tracer
		return
	fi
	wait "$tracer"
	t2=$(now_us)
	tracer=
	FIRST_US=$((t1 - t0)) TOTAL_US=$((t2 - t0))
}

# measure NAME CMD...: one warm-up run, then RUNS timed runs; sets FIRST_MS
# and TOTAL_MS (medians, milliseconds), both empty when a run showed no
# event.
measure() {
	local name=$1 i
	shift
	FIRST_MS='' TOTAL_MS=''
	: >"$W/first" && : >"$W/total"
	for ((i = 0; i <= RUNS; i++)); do
		run_once "$@"
		if [ -z "$FIRST_US" ]; then
			echo "bench: $name showed no event within ${TIMEOUT}s:" >&2
			grep -v RLIMIT_MEMLOCK "$W/tracer.err" | head -n 5 >&2
			return
		fi
		((i == 0)) && continue	# the warm-up run
		echo "$FIRST_US" >>"$W/first"
		echo "$TOTAL_US" >>"$W/total"
	done
	FIRST_MS=$(median <"$W/first" | awk '{ printf "%.1f", $1 / 1000 }')
	TOTAL_MS=$(median <"$W/total" | awk '{ printf "%.1f", $1 / 1000 }')
}

# times_x A B: "N.Nx" for A / B, "-" when there is no figure.
times_x() {
	local r
	r=$(fmt_ratio "$1" "$2")
	[ "$r" = - ] && echo - || echo "${r}x"
}

row() {
	printf '%-10s %16s %14s\n' "$1" "${2:--}" "${3:--}"
}

start_server
start_client

echo "postgresql query-start, one session sending '$QUERY' every" \
	"$INTERVAL ms (median of $RUNS runs)"
row "" "first event ms" "exit ms"

status=0
measure dtrace "$DTRACE" -q -n 'postgresql*:::query-start
	{ printf("%s\n", copyinstr(arg0)); exit(0); }'
our_first=$FIRST_MS our_total=$TOTAL_MS
row dtrace "$our_first" "$our_total"
[ -z "$our_first" ] && status=1

if have_bpftrace; then
	measure bpftrace bpftrace -q -e "usdt:$PG/postgres:postgresql:query__start
		{ printf(\"%s\\n\", str(arg0)); exit(); }"
	row bpftrace "$FIRST_MS" "$TOTAL_MS"
	echo "ratio bpftrace / dtrace: first event" \
		"$(times_x "$FIRST_MS" "$our_first"), exit" \
		"$(times_x "$TOTAL_MS" "$our_total")"
else
	echo "bpftrace is not installed: no comparison"
fi
exit $status
