#!/bin/bash
# SPDX-License-Identifier: MIT
# A step of start-up that takes more than a second says so on a terminal,
# once, as teardown's detaching does: a description that the test plugin
# slowmatch takes 1.5 s to match prints "dtrace: matching the probe
# descriptions..." on a terminal (script(1) gives dtrace one), and nothing
# when stderr is not a terminal; a quick start-up prints no such line.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc script

mkdir p
cc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$TESTDIR/../include" \
	-o p/slowmatch.so "$TESTDIR/plugins/slowmatch.c" || exit 1
slow=("$DTRACE" -Z -q -x plugindir="$PWD/p" -n 'slowmatch:::nothing { }'
      -n 'BEGIN { printf("began\n"); exit(0); }')
line='dtrace: matching the probe descriptions...'

# on a terminal: the line once, before tracing began
script -qec "$(printf '%q ' "${slow[@]}")" /dev/null </dev/null >tty.out 2>&1 ||
	{ cat tty.out; fail "dtrace on a terminal failed"; }
tr -d '\r' <tty.out | sed '/^$/d' >tty.txt
[ "$(grep -cxF "$line" tty.txt)" = 1 ] ||
	{ fail "on a terminal: not one '$line'"; cat tty.txt; }
[ "$(sed -n '$p' tty.txt)" = began ] ||
	{ fail "on a terminal: not ended by the trace"; cat tty.txt; }
[ "$(wc -l <tty.txt)" = 2 ] || { fail "on a terminal: other lines"; cat tty.txt; }

# not a terminal: nothing but the trace
"${slow[@]}" >out 2>err || fail "dtrace failed: $(cat err)"
[ "$(cat out)" = began ] && [ ! -s err ] ||
	{ fail "not a terminal"; cat out err; }

# a quick start-up on a terminal: no progress line
script -qec "$(printf '%q ' "$DTRACE" -q -n 'BEGIN { printf("began\n"); exit(0); }')" \
	/dev/null </dev/null >tty.out 2>&1
[ "$(tr -d '\r' <tty.out | sed '/^$/d')" = began ] || { fail "quick start-up"; cat tty.out; }
exit $status
