#!/bin/bash
# A provider plugin built out of the tree against the installed headers
# only is loaded from -x plugindir and from DTRACE_PLUGIN_PATH, and its
# probe fires; a plugin built for another interface version is refused with
# a message naming the file and both versions, and dtrace goes on.
set -u
[ -x "$DTRACE" ] || exit 77
command -v cc >/dev/null || exit 77
SRC=$TESTDIR/plugins/hello.c
ROOT=$TESTDIR/..
status=0

# the headers make install puts under $(PREFIX)/include/dtrace, alone
mkdir -p inc/dtrace && cp "$ROOT"/include/dtrace/*.h inc/dtrace/ || exit 1
INC=$PWD/inc

mkdir -p good bad
cc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$INC" -o good/hello.so "$SRC" ||
	exit 1
cc -shared -fPIC -O2 -I"$INC" -DHELLO_VERSION=99 -o bad/hello.so "$SRC" ||
	exit 1

out=$("$DTRACE" -q -x plugindir="$PWD/good" \
	-n 'hello:::ping { printf("%d %d\n", arg0, arg1 == pid); exit(0); }' 2>err)
if [ "$out" != "$(printf '42 1\n')" ]; then
	echo "plugindir: got '$out'"; cat err; status=1
fi
out=$(DTRACE_PLUGIN_PATH="$PWD/good" "$DTRACE" -q \
	-n 'hello:::ping { printf("%d\n", arg0); exit(0); }' 2>err)
if [ "$out" != "$(printf '42\n')" ]; then
	echo "DTRACE_PLUGIN_PATH: got '$out'"; cat err; status=1
fi

"$DTRACE" -q -x plugindir="$PWD/bad" -n 'BEGIN { printf("on\n"); exit(0); }' \
	>out 2>err
rc=$?
msg="dtrace: plugin $PWD/bad/hello.so was built for provider interface version 99, this dtrace has version 2: not loaded"
if [ $rc != 0 ] || ! grep -qx on out || ! grep -qxF "$msg" err; then
	echo "wrong version: exit $rc"; cat out err; status=1
fi
exit $status
