#!/bin/bash
# SPDX-License-Identifier: MIT
# fbt entry and return in both modes (fentry/fexit and kprobes): vfs_read
# as systarget reads 77 bytes from /dev/zero: args[2] the count at entry,
# args[0] a struct file * typed from BTF whose path names "zero", arg1 the
# bytes read at return, and the function's names.
set -u
. "$(dirname "$0")/check_lib.sh"
status=0
for mode in fentry kprobe; do
	"$DTRACE" -x fbt.mode=$mode -q -c "$PROGS/systarget" -n '
fbt::vfs_read:entry /pid == $target && args[2] == 77/ {
	printf("%s:%s:%s:%s %d %s %d\n", probeprov, probemod, probefunc,
	    probename, args[2],
	    stringof(args[0]->f_path.dentry->d_name.name),
	    args[0]->f_path.dentry->d_name.len);
	self->r = 1;
}
fbt::vfs_read:return /self->r/ {
	printf("%s %d %d\n", probename, arg0, arg1);
	self->r = 0;
}' >out 2>err
	check "$mode" "$(grep -v '^done$' out | grep .)" \
'fbt:vmlinux:vfs_read:entry 77 zero 4\|return 0 77\|'
done
exit $status
