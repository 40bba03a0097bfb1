#!/bin/bash
# SPDX-License-Identifier: MIT
# A <sys/sdt.h> USDT probe on the older kernel (semaphore through the
# perf-event uprobe's reference counter): sdt_args's many probe with ten
# arguments, and its guarded probe, whose code runs only while traced.
set -u
. "$(dirname "$0")/check_lib.sh"
status=0
"$DTRACE" -q -c "$PROGS/sdt_args 2" -n '
sdt_test$target:::many { printf("%s %d %d %d\n", probename, arg0, arg5, arg9); }
sdt_test$target:::guarded { printf("%s %d %d\n", probename, arg0, arg1); }' >out 2>err
check usdt "$(grep -v ' semaphore ' out | grep .)" \
'many 0 5 9\|guarded 0 1\|many 1 6 10\|guarded 1 2\|'
grep -qx 'guarded 2 semaphore 1' out || { echo "semaphore not seen:"; cat out; status=1; }
exit $status
