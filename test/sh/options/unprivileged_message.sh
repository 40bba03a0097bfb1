#!/bin/bash
# SPDX-License-Identifier: MIT
# A user without the privilege to trace is told which capabilities lack,
# once and before any work (no -c command is started), rather than that
# the kernel lacks the BPF ring buffer; listing and compiling, which need
# none, still work.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
. "$TESTDIR/sh/lib/user_lib.sh"
throwaway_user
dir=$(user_dir u)
as_user test -x "$DTRACE" ||
	{ echo "the build is out of an unprivileged user's reach"; exit 77; }

as_user "$DTRACE" -n 'BEGIN { exit(0); }' -c "touch $dir/started" \
	>out 2>err
rc=$?
want="dtrace: tracing needs root, or the capabilities CAP_BPF and CAP_PERFMON (with CAP_SYS_PTRACE for other users' processes): this process lacks CAP_BPF and CAP_PERFMON"
if [ $rc != 1 ] || [ "$(cat err)" != "$want" ]; then
	echo "unprivileged tracing: exit $rc, stderr:"; cat err
	echo "expected: $want"; status=1
fi
[ -e "$dir/started" ] && { echo "the -c command ran"; status=1; }

as_user "$DTRACE" -e -n 'BEGIN { exit(0); }' >out 2>err ||
	{ echo "-e refused:"; cat err; status=1; }
as_user "$DTRACE" -l -n 'dtrace:::BEGIN' >out 2>err ||
	{ echo "-l refused:"; cat err; status=1; }
grep -q ':BEGIN\| BEGIN$' out || { echo "-l listed:"; cat out; status=1; }
exit $status
