#!/bin/bash
# SPDX-License-Identifier: MIT
# fbt on this kernel: functions listed from the kernel's BTF with their
# argument types; where the kernel has neither BPF trampolines nor
# kprobes, an fbt description fails with one line saying so (and so does
# a forced mode the kernel lacks, and a bad mode; -x fbtmode=... is
# -x fbt.mode=...).  Tracing itself is
# tested in the virtual machine (make check-vm).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
[ -r /sys/kernel/btf/vmlinux ] || exit 77
. "$TESTDIR/sh/lib/check_lib.sh"

"$DTRACE" -l -n 'fbt::vfs_read:' >out 2>err
check list "$(sed 's/  */ /g' out)" \
' ID PROVIDER MODULE FUNCTION NAME\| [0-9]+ fbt vmlinux vfs_read entry\| [0-9]+ fbt vmlinux vfs_read return\|'
"$DTRACE" -lv -n 'fbt::vfs_read:entry' >out 2>err
check types "$(grep 'args\[[01]\]' out | sed 's/^[[:space:]]*//')" \
'args\[0\]: struct file \*\|args\[1\]: char \*\|'
"$DTRACE" -l -n 'fbt::vfs_rea?:return' >out 2>err
check glob "$(awk 'NR > 1 { print $4, $5 }' out)" 'vfs_read return\|'

"$DTRACE" -x fbt.mode=sometimes -n 'fbt::vfs_read:entry' >out 2>err
check bad-mode "$(cat err)" \
'dtrace: fbt: -x fbt.mode=sometimes: expected fentry or kprobe\|'

# Either the kernel traces vfs_read (the clause exits at the first read)
# or one line says what it lacks.
timeout 20 "$DTRACE" -n 'fbt::vfs_read:entry { exit(0); }' >out 2>err &
dt=$!
sleep 1; cat /proc/self/status >/dev/null  # a read of its own, should it trace
wait $dt
check neither-or-traced "$(grep -v 'matched 1 probe' err)" \
'(dtrace: fbt: this kernel has neither BPF trampolines \(fentry/fexit\) nor kprobes: kernel functions cannot be traced)?\|'
# The mode is also -x fbtmode=..., as the plugin's option without its dot.
if [ ! -e /sys/bus/event_source/devices/kprobe ]; then
	for opt in fbt.mode fbtmode; do
		"$DTRACE" -x $opt=kprobe -n 'fbt::vfs_read:entry' >out 2>err
		check "forced-kprobe $opt" "$(grep -v 'matched 1 probe' err)" \
'dtrace: fbt: -x fbt.mode=kprobe: this kernel has no kprobes\|'
	done
fi
"$DTRACE" -x fbtmood=kprobe -n 'fbt::vfs_read:entry' >out 2>err
check undotted-unknown "$(cat err)" \
'dtrace: failed to set option -x fbtmood: Invalid option name\|'

exit $status
