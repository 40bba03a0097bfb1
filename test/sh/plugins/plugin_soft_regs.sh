#!/bin/bash
# SPDX-License-Identifier: MIT
# A clause that reads the registers of the probe site (ucaller, uregs) on a
# probe its plugin fires itself, with no instruction of its own to execute,
# cannot run: dtrace says so, naming the plugin, rather than exiting 1 in
# silence.  BEGIN, whose plugin has a real site to fall back on, still
# gives ucaller.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc

stage_install
mkdir -p p
cc -shared -fPIC -O2 -I"$PWD/stage/usr/local/include" -o p/hello.so \
	"$TESTDIR/plugins/hello.c" || exit 1

msg="dtrace: plugin $PWD/p/hello.so could not fire its probe: a clause reads the registers of the probe site (uregs, ucaller, ustack...), which a probe the plugin fires itself does not have"
"$DTRACE" -q -x plugindir="$PWD/p" \
	-n 'hello:::ping { printf("%x\n", ucaller); exit(0); }' >out 2>err
rc=$?
if [ $rc = 0 ] || ! grep -qxF "$msg" err; then
	echo "ucaller: exit $rc"; cat out err; status=1
fi

out=$("$DTRACE" -q -n 'BEGIN { printf("%d\n", ucaller != 0); exit(0); }' \
	2>err)
if [ "$out" != 1 ] || [ -s err ]; then
	echo "BEGIN ucaller: got '$out'"; cat err; status=1
fi
exit $status
