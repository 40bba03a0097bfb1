#!/bin/bash
# SPDX-License-Identifier: MIT
# dtrace -l with pid probes: DTrace's columns, module a.out / libc.so.6.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

"$DTRACE" -l -c "$T 1" -n 'pid$target:a.out:add:entry' \
	-n 'pid$target:libc.so.6:malloc:return' >out 2>err
rc=$?
header=$(printf '%5s %10s %17s %33s %s' ID PROVIDER MODULE FUNCTION NAME)
if [ $rc != 0 ] || [ "$(sed -n 1p out)" != "$header" ] ||
   [ "$(wc -l <out)" != 3 ]; then
	echo "exit $rc"; cat out err; status=1
fi
line=$(sed -n 2p out)
id=$(echo "$line" | awk '{ print $1 }')
prv=$(echo "$line" | awk '{ print $2 }')
want=$(printf '%5d %10s %17s %33s %s' "$id" "$prv" a.out add entry)
[ "$line" = "$want" ] || { echo "line: '$line'"; echo "want: '$want'"; status=1; }
want=$(printf '%5d %10s %17s %33s %s' "$((id + 1))" "$prv" libc.so.6 malloc return)
[ "$(sed -n 3p out)" = "$want" ] || { echo "line 3: $(sed -n 3p out)"; status=1; }
case $prv in pid[0-9]*) ;; *) echo "provider $prv"; status=1 ;; esac

# -l -p
"$T" -s 10000 0 >/dev/null 2>&1 & tpid=$!
sleep 0.3
"$DTRACE" -l -p $tpid -n 'pid$target:a.out:sum8:entry' >out 2>err
rc=$?
kill -9 $tpid
if [ $rc != 0 ] ||
   ! sed -n 2p out | grep -Eqx -- " *[0-9]+ +pid$tpid +a\.out +sum8 entry"; then
	echo "-l -p: exit $rc"; cat out err; status=1
fi
exit $status
