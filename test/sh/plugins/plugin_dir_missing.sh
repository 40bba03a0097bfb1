#!/bin/bash
# SPDX-License-Identifier: MIT
# An entry of DTRACE_PLUGIN_PATH that is not there is said so by name, and
# dtrace goes on with the others, as a search path does; before, a typo
# was ignored without a word and showed only as a description that matched
# no probe.  (-x plugindir naming no directory is a bad option value:
# options/option_plugindir_missing.sh.)
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
DTRACE_PLUGIN_PATH="$PWD/typo:$DTRACE_PLUGIN_PATH" "$DTRACE" -q \
	-n 'BEGIN { printf("ok\n"); exit(0); }' >out 2>err
grep -qx ok out && grep -qx "dtrace: plugin directory $PWD/typo: No such file or directory" err ||
	{ echo "DTRACE_PLUGIN_PATH:"; cat out err; status=1; }
exit $status
