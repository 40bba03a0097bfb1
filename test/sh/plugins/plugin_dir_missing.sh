#!/bin/bash
# SPDX-License-Identifier: MIT
# A plugin directory the user names that is not there (-x plugindir, an
# entry of DTRACE_PLUGIN_PATH) is said so by name, and dtrace goes on with
# the others; before, a typo was ignored without a word and showed only as
# a description that matched no probe.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
"$DTRACE" -q -x plugindir="$PWD/nosuchdir" -n 'BEGIN { printf("ok\n"); exit(0); }' \
	>out 2>err
grep -qx ok out && grep -qx "dtrace: plugin directory $PWD/nosuchdir: No such file or directory" err ||
	{ echo "-x plugindir:"; cat out err; status=1; }
DTRACE_PLUGIN_PATH="$PWD/typo:$DTRACE_PLUGIN_PATH" "$DTRACE" -q \
	-n 'BEGIN { printf("ok\n"); exit(0); }' >out 2>err
grep -qx ok out && grep -qx "dtrace: plugin directory $PWD/typo: No such file or directory" err ||
	{ echo "DTRACE_PLUGIN_PATH:"; cat out err; status=1; }
exit $status
