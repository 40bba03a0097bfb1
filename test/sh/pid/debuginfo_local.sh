#!/bin/bash
# SPDX-License-Identifier: MIT
# Separate debug information is looked for on this machine only: a session
# on a program without any, with DEBUGINFOD_URLS set, loads no debuginfod
# client (libdw's standard search would load it and its libcurl, and
# download the program's and its libraries' debug information at start).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
need_cmd objcopy

# The program stripped of its DWARF, its debug file nowhere to be found.
objcopy --strip-debug "$T" pt || exit 1
./pt -s 100000 0 >/dev/null 2>&1 & tpid=$!
trap 'kill $tpid $dpid 2>/dev/null' EXIT
dpid=
DEBUGINFOD_URLS=http://127.0.0.1:9/ DTRACE_DEBUG_DIR=$PWD/nodebug \
	"$DTRACE" -q -p "$tpid" -n 'BEGIN { printf("ready\n"); }' >out 2>err &
dpid=$!
for _ in $(seq 100); do
	grep -q ready out && break
	sleep 0.1
done
grep -q ready out || { echo "no session"; cat err; exit 1; }
maps=$(cat "/proc/$dpid/maps")
if grep -Eq 'libdebuginfod|libcurl' <<<"$maps"; then
	echo "the session loaded a debuginfod client:"
	grep -E 'libdebuginfod|libcurl' <<<"$maps"
	exit 1
fi
exit 0
