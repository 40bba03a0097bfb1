#!/bin/bash
# SPDX-License-Identifier: MIT
# stack()'s kernel frames are named from /proc/kallsyms as DTrace names
# them: vmlinux`function+0xoff for the kernel's text, module`function+0xoff
# for a module's (bpf`bpf_prog_... for JIT-ed programs), indented as
# ustack()'s are; no frame stays a bare address.  BEGIN runs from the bpf()
# system call: its stack ends in the kernel's system call entry.  The
# same names in stack(n), as aggregation keys with printa's %k, in the
# JSON output and in folded stacks.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
# kallsyms shows zeros to the unprivileged: addresses stay numbers then
awk 'NR == 1 { exit $1 !~ /^0+$/ }' /proc/kallsyms &&
	{ echo "kallsyms hides its addresses"; exit 77; }
I='              '	# DTrace's stack indent
F="[a-z]+\`[A-Za-z_0-9.]+(\+0x[0-9a-f]+)?"	# a named frame

. "$TESTDIR/sh/lib/check_lib.sh"

# 1. stack(): named frames only, the kernel's among them
out=$("$DTRACE" -q -n 'BEGIN { stack(); exit(0); }' 2>err)
check "stack" "$out" "\|(${I}${F}\|)+\|?"
check "stack vmlinux" "$out" ".*\|${I}vmlinux\`[a-z_0-9.]+\+0x[0-9a-f]+\|.*"
check "stack syscall" "$out" ".*\|${I}vmlinux\`entry_SYSCALL_64[a-z_]*\+0x[0-9a-f]+\|.*"
case $out in *0xffff*) echo "FAIL: a bare kernel address: $out"; status=1;; esac

# 2. stack(2): two frames
out=$("$DTRACE" -q -n 'BEGIN { stack(2); exit(0); }' 2>err)
check "stack(2)" "$out" "\|${I}${F}\|${I}${F}\|?"

# 3. an aggregation key, printed at the end and by printa's %k
out=$("$DTRACE" -q -n 'BEGIN { @[stack(2)] = count(); exit(0); }' 2>err)
check "stack key" "$out" "\|*${I}${F}\|${I}${F}\| {16}1\|\|?"
out=$("$DTRACE" -q -n 'BEGIN { @[stack(2)] = count(); printa("%k %@d\n", @);
	exit(0); }' 2>err)
check "printa %k" "$out" "\|*${I}${F}\|${I}${F}\| 1\|.*"

# 4. JSON: a frame is {address, module, symbol, offset}
out=$("$DTRACE" -q -x oformat=json -n 'BEGIN { stack(); exit(0); }' 2>err)
check "json" "$out" '.*"stack":\[\{"address":[0-9]+,"module":"[a-z]+","symbol":"[A-Za-z_0-9.]+","offset":[0-9]+\}.*\{"address":[0-9]+,"module":"vmlinux","symbol":"[a-z_0-9.]+","offset":[0-9]+\}.*'

# 5. folded stacks: a frame is module`function, outermost first
"$DTRACE" -q -x oformat=folded -o folded -n 'BEGIN { @[stack()] = count(); exit(0); }' \
	>out 2>err || { cat err; status=1; }
check "folded" "$(cat folded)" "vmlinux\`entry_SYSCALL_64[a-z_]*;vmlinux\`[a-z_0-9]+;.*[a-z]+\`[A-Za-z_0-9.]+ 1\|"
exit $status
