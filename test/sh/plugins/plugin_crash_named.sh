#!/bin/bash
# SPDX-License-Identifier: MIT
# A plugin that crashes kills dtrace, and the last line before it dies
# names the plugin's file and the operation that ran: evil.so
# (test/plugins/evil.c) built with -DEVIL_CRASH dereferences NULL in
# provide().  dtrace dies of it (killed by SIGSEGV, or in the sanitizer
# build through AddressSanitizer's report, which must still come: the
# handler gives the signal back to the action it displaced).  The clause
# says *:::BEGIN: the plugins are not asked about a bare BEGIN, the dtrace
# provider's.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
command -v cc >/dev/null || { echo "no cc"; exit 77; }
ulimit -c 0	# no core file for the crash this test makes

mkdir -p crash
cc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$TESTDIR/../include" \
	-DEVIL_CRASH -o crash/evil.so "$TESTDIR/plugins/evil.c" || exit 1

"$DTRACE" -q -x plugindir="$PWD/crash" \
	-n '*:::BEGIN { printf("begin\n"); exit(0); }' >out 2>err
rc=$?
msg="dtrace: plugin $PWD/crash/evil.so crashed in provide(): SIGSEGV"
if [ "${DT_SANITIZED:-0}" = 1 ]; then
	want="exit status 99 (AddressSanitizer)"
	[ $rc = 99 ] && grep -q 'AddressSanitizer: SEGV' err || status=1
else
	want="killed by SIGSEGV (status 139)"
	[ $rc = 139 ] || status=1
fi
grep -qxF "$msg" err || status=1
if [ -s out ] || [ $status != 0 ]; then
	echo "want: $msg, $want; got status $rc"
	head -20 err; cat out; status=1
fi
exit $status
