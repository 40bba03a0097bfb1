#!/bin/bash
# SPDX-License-Identifier: MIT
# caller and stackdepth: the kernel PC that ran the probe (the first frame
# below the probe's BPF programs), uint64_t, which %a prints as
# vmlinux`function+0xoff; the frames of the kernel stack, uint32_t, as
# many as stack() prints in the same clause.  At a user probe the kernel
# stack is empty, as stack()'s is: both are 0.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
awk 'NR == 1 { exit $1 !~ /^0+$/ }' /proc/kallsyms &&
	{ echo "kallsyms hides its addresses"; exit 77; }
I='              '	# DTrace's stack indent
K="vmlinux\`[a-z_0-9.]+\+0x[0-9a-f]+"	# a frame of the kernel's text

. "$TESTDIR/sh/lib/check_lib.sh"

# 1. %a of caller, and its types
out=$("$DTRACE" -q -n 'BEGIN { printf("%a %d %d\n", caller, sizeof (caller),
	sizeof (stackdepth)); exit(0); }' 2>err)
check "caller" "$out" "${K} 8 4\|"

# 2. caller is a frame of stack(); stackdepth counts stack()'s lines
out=$("$DTRACE" -q -n 'BEGIN { printf("%a %d\n", caller, stackdepth); stack();
	exit(0); }' 2>err)
check "stack" "$out" "${K} [1-9][0-9]*\|\|(${I}[^|]+\|)+\|?"
read -r c depth <<<"$(head -1 <<<"$out")"
frames=$(tail -n +3 <<<"$out" | grep -c .)
[ "$depth" = "$frames" ] ||
	{ echo "FAIL: stackdepth $depth, stack() $frames frames: $out"; status=1; }
grep -qxF "$I$c" <<<"$out" ||
	{ echo "FAIL: caller $c is no frame of stack(): $out"; status=1; }

# 3. in a predicate and as an aggregation key that printa's %a prints
out=$("$DTRACE" -q -n 'BEGIN /stackdepth > 0 && caller != 0/ {
	@[caller] = count(); printa("%a %@d\n", @); exit(0); }' 2>err)
check "key" "$out" "${K} 1\|"

# 4. at a user probe: no kernel stack
out=$("$DTRACE" -q -c "$T -s 1000 0" -n 'pid$target:a.out:add:entry {
	printf("%x %d\n", caller, stackdepth); exit(0); }' 2>err |
	grep -Ex '[0-9a-f]+ [0-9]+')	# not the target's own lines
check "uprobe" "$out" "0 0\|"
exit $status
