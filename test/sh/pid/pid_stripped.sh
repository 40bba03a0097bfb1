#!/bin/bash
# SPDX-License-Identifier: MIT
# A stripped executable whose symbols are in a separate debug file (found
# through .gnu_debuglink next to it): its functions are still traced.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
need_cmd objcopy

objcopy --only-keep-debug "$T" pt.debug || exit 1
objcopy --strip-all --add-gnu-debuglink=pt.debug "$T" pt || exit 1
if nm pt 2>/dev/null | grep -q ' add$'; then echo "not stripped"; exit 1; fi

"$DTRACE" -q -c "./pt 2" \
	-n 'pid$target:a.out:add:entry { printf("%d\n", arg1); }' >out 2>err
rc=$?
if [ $rc != 0 ] || [ "$(grep -v done out)" != "$(printf '1\n2')" ]; then
	echo "exit $rc"; cat out err; exit 1
fi
exit 0
