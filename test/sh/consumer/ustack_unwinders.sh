#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 60
# -x unwinder: libdw (the default) and libunwind unwind the same copied
# stacks of nofp (built -O2 -fomit-frame-pointer) to the same frames, at a
# function's entry, inside its prologue, at its return under pending
# return probes (the hidden return addresses put back) and in libc; a
# backend that is not one of the two is refused.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog nofp
. "$TESTDIR/sh/lib/check_lib.sh"
I='              '	# DTrace's stack indent
O='\+0x[0-9a-f]+'	# an offset
BASE="${I}nofp\`main$O\|${I}libc\.so\.6\`__libc_start_call_main$O\|${I}libc\.so\.6\`__libc_start_main$O\|${I}nofp\`_start$O\|"

# stacks UNWINDER: nofp's stacks at malloc's entry, level3's second
# instruction and level3's return, with return probes on all levels
stacks() {
	"$DTRACE" -q -x unwinder="$1" -c "$T 1" \
		-n 'pid$target:libc.so.6:malloc:entry /arg0 == 201/ { ustack(); }' \
		-n 'pid$target:a.out:level3:1 { ustack(); }' \
		-n 'pid$target:a.out:level3:return { ustack(); }' \
		-n 'pid$target:a.out:level*:return { }' 2>err | grep -v '^done'
}

libdw=$(stacks libdw)
libunwind=$(stacks libunwind)
check "libunwind" "$libunwind" \
	"\|${I}nofp\`level3\+0x1\|${I}nofp\`level2$O\|${I}nofp\`level1$O\|$BASE\|${I}libc\.so\.6\`malloc\|${I}nofp\`level3$O\|${I}nofp\`level2$O\|${I}nofp\`level1$O\|$BASE\|${I}nofp\`level2$O\|${I}nofp\`level1$O\|$BASE"
[ "$libdw" = "$libunwind" ] ||
	fail "the unwinders differ: libdw:" "$libdw" "libunwind:" "$libunwind"

# a backend that is not one of the two
out=$("$DTRACE" -x unwinder=gdb -n 'BEGIN { exit(0); }' 2>&1)
check "refused" "$out" "dtrace: failed to set option -x unwinder=gdb: Invalid value for specified option\|"
exit $status
