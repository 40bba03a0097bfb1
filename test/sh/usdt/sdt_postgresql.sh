#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# PostgreSQL's <sys/sdt.h> probes: a server started by the test in a
# temporary directory (as the unprivileged user nobody), traced with
# postgresql*:::query-start, which must catch the queries of every backend:
# one connected before dtrace started and one connecting afterwards (forked
# by the postmaster while tracing runs).  Skips when PostgreSQL 15 is absent.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
pg=/usr/lib/postgresql/15/bin
[ -x $pg/postgres ] && [ -x $pg/initdb ] && [ -x $pg/psql ] ||
	{ echo "no PostgreSQL in $pg"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "no user nobody"; exit 77; }
command -v runuser >/dev/null || { echo "no runuser"; exit 77; }

dir=$(mktemp -d /tmp/sdt_pg.XXXXXX)
chown nobody "$dir"
chmod 755 "$dir"
as_pg() { runuser -u nobody -- "$@"; }
cleanup() {
	[ -n "${dt:-}" ] && kill -INT "$dt" 2>/dev/null
	[ -n "${first:-}" ] && kill "$first" 2>/dev/null
	as_pg $pg/pg_ctl -D "$dir/data" -m immediate stop >/dev/null 2>&1
	rm -rf "$dir"
}
trap cleanup EXIT

as_pg $pg/initdb -D "$dir/data" -A trust -U nobody >"$dir/initdb.log" 2>&1 ||
	{ echo "initdb failed:"; cat "$dir/initdb.log"; exit 1; }
as_pg $pg/pg_ctl -D "$dir/data" -l "$dir/server.log" -w \
	-o "-k $dir -c listen_addresses=''" start >/dev/null ||
	{ echo "server did not start:"; cat "$dir/server.log"; exit 1; }
psql() { as_pg $pg/psql -h "$dir" -U nobody -d postgres -X -q -t -A "$@"; }
# (The fifo's writing end is fd 3 of this shell only: psql ends at its
# close, so nothing else may inherit it.)

# A session opened before dtrace starts; it sends its queries later.
mkfifo "$dir/in"
chmod 666 "$dir/in"
psql <"$dir/in" >"$dir/first.out" 2>&1 &
first=$!
exec 3>"$dir/in"
echo "select 1;" >&3
sleep 0.3

"$DTRACE" -q -n 'BEGIN { printf("tracing\n"); }' \
	-n 'postgresql*:::query-start { printf("query %s\n", copyinstr(arg0)); }' >out 2>err 3>&- &
dt=$!
if ! wait_line out "^tracing" 200; then
	echo "dtrace did not start:"; cat out err
	exit 1
fi
echo "select 'sdt_old_session';" >&3
exec 3>&-
wait "$first"
first=
psql -c "select 'sdt_new_session';" >/dev/null
wait_line out "sdt_new_session" 200
kill -INT "$dt"
wait "$dt"
dt=
for q in "select 'sdt_old_session';" "select 'sdt_new_session';"; do
	if ! grep -qxF "query $q" out; then
		echo "query-start did not show: $q"; cat out err
		status=1
	fi
done
exit $status
