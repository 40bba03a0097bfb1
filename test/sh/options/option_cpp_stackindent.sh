#!/bin/bash
# SPDX-License-Identifier: MIT
# DTrace's -x define, undef and incdir are -D, -U and -I (with -C); -x
# stackindent sets the columns before each frame of a printed stack (14
# by default), and refuses a negative one; DTrace's options that are not
# implemented here (cpu, aggzoom) are refused by name, with the reason.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog typed
. "$TESTDIR/sh/lib/check_lib.sh"

mkdir inc
echo '#define FROM_INC 7' > inc/defs.h
cat > def.d <<'D'
#include "defs.h"
#ifdef GONE
#error GONE is still defined
#endif
BEGIN { printf("%d %d\n", FOO, FROM_INC); exit(0); }
D
out=$("$DTRACE" -C -x define=FOO=3 -D GONE -x undef=GONE -x incdir=inc \
	-qs def.d 2>err)
check "define, undef, incdir" "$out" '3 7\|'

for indent in 2 default; do
	opt=""
	[ $indent = default ] || opt="-x stackindent=$indent"
	out=$("$DTRACE" -q $opt -c "$T 1" -n 'pid$target:a.out:area:entry {
		ustack(2); }' 2>err | grep '`')
	[ $indent = default ] && indent=14
	check "stackindent $indent" "$out" \
		" {$indent}typed\`area\| {$indent}typed\`main\+0x[0-9a-f]+\|"
done

"$DTRACE" -x stackindent=-1 -n 'BEGIN { exit(0); }' >out 2>err
check "negative stackindent" "$(cat err)" \
	'dtrace: failed to set option -x stackindent=-1: Invalid value for specified option\|'
"$DTRACE" -x cpu=0 -n 'BEGIN { exit(0); }' >out 2>err
check "cpu" "$(cat err)" \
	'dtrace: failed to set option -x cpu: not supported here: probes fire on every CPU\|'
"$DTRACE" -x aggzoom -n 'BEGIN { exit(0); }' >out 2>err
check "aggzoom" "$(cat err)" \
	"dtrace: failed to set option -x aggzoom: not supported here: aggregations print in DTrace's default layout\\|"
exit $status
