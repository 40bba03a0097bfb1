#!/bin/bash
# SPDX-License-Identifier: MIT
# `make demo` is a demo a person reads: the header line, the program's own
# summary, then dtrace's, which fits on a screen; the failed lookups are
# counted in it, not printed one line each before it.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
ROOT=$(cd "$TESTDIR/.." && pwd)

# the build under test as it was made (the sanitizer's flags too), so
# that nothing is rebuilt
san=
[ -n "${DT_SANITIZED:-}" ] && san=SANITIZE=1
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -s --no-print-directory -C "$ROOT" demo B="$B" $san >out 2>err ||
	{ cat out err; fail "make demo failed"; exit 1; }
grep -q '^Tracing demo (pid [0-9]*)\.\.\. it ends by itself in 3 seconds\.$' out ||
	fail "no header line"
grep -q 'request failed' out && fail "a line per failed request"
grep -qx 'Requests by kind:' out || fail "no requests by kind"
grep -qx 'Failed lookups, by value returned:' out || fail "no failures count"
grep -Eqx '  -1 +[0-9]+' out || fail "no count of lookups that returned -1"
n=$(wc -l <out)
[ "$n" -le 50 ] || fail "$n lines, more than a screen"
[ -s err ] && { echo "stderr:"; cat err; fail "messages on stderr"; }
exit $status
