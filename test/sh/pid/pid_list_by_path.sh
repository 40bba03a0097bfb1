#!/bin/bash
# SPDX-License-Identifier: MIT
# pid:/path/to/file:FUNCTION:NAME without a process: dtrace -l lists the
# file's functions under the provider "pid" and the file's name (through a
# link too), and the same description traces every process that runs the
# file; a file that is missing or not ELF is a clear error.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
EXE=$(readlink -f "$T")

# 1. -l of one function's entry and return, no -c or -p
"$DTRACE" -l -n "pid:$EXE:add:" >out 2>err
rc=$?
header=$(printf '%5s %10s %17s %33s %s' ID PROVIDER MODULE FUNCTION NAME)
id=$(sed -n 2p out | awk '{ print $1 }')
want=$(printf '%5d %10s %17s %33s %s\n' "$id" pid pidtarget add entry \
	"$((id + 1))" pid pidtarget add return)
if [ $rc != 0 ] || [ "$(sed -n 1p out)" != "$header" ] ||
   [ "$(sed -n 2,3p out)" != "$want" ] || ! sed -n 4p out | grep -Eq ' add 0$'; then
	echo "-l by path: exit $rc"; cat out err; status=1
fi

# 2. a glob on the function: every function's entry, main among them
"$DTRACE" -l -n "pid:$EXE::entry" >out 2>err
if ! grep -Eqx ' *[0-9]+ +pid +pidtarget +main entry' out ||
   grep -v entry out | grep -vq '^ *ID'; then
	echo "-l glob:"; cat out err; status=1
fi

# 2b. through a symbolic link: named as the file itself
ln -s "$EXE" link
"$DTRACE" -l -n "pid:$PWD/link:add:entry" >out 2>err
if [ "$(wc -l <out)" != 2 ] ||
   ! sed -n 2p out | grep -Eqx ' *[0-9]+ +pid +pidtarget +add entry'; then
	echo "-l through a link:"; cat out err; status=1
fi

# 3. tracing by path fires in a process started afterwards (others' tests
# may run the same program meanwhile: only the target's firings count)
out=$("$DTRACE" -c "$T 3" -n "pid:$EXE:add:entry /pid == \$target/ { @[probeprov, probemod] = count(); }" 2>err |
	grep -v '^done ')
if ! grep -Eq '^ +pid +pidtarget +3$' <<<"$out"; then
	echo "tracing by path:"; echo "$out"; cat err; status=1
fi

# 4. a missing file and a file that is not ELF
"$DTRACE" -l -n 'pid:/nonexistent/prog::entry' >out 2>err
if ! grep -qx "dtrace: invalid probe specifier pid:/nonexistent/prog::entry: cannot open /nonexistent/prog: No such file or directory" err; then
	echo "missing file:"; cat out err; status=1
fi
"$DTRACE" -l -n 'pid:/etc/passwd::entry' >out 2>err
if ! grep -qx "dtrace: invalid probe specifier pid:/etc/passwd::entry: /etc/passwd is not an ELF file" err; then
	echo "not ELF:"; cat out err; status=1
fi
exit $status
