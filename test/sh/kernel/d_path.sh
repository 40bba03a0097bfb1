#!/bin/bash
# SPDX-License-Identifier: MIT
# d_path(): the name of a struct path as the kernel writes it, walked in
# BPF from the kernel's BTF: the cwd of a process (curthread->fs->pwd) in
# a directory of this test's, on other mounts (/dev/shm, /proc, bpffs under
# sysfs: mounts crossed), at the root, deleted (" (deleted)"), cut to its
# last components by a small strsize (to nothing when the last does not
# fit); and the executable's path
# (mm->exe_file->f_path), the program's real path.  The program is
# /bin/echo, which surely writes.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_exec /bin/echo
[ -r /sys/kernel/btf/vmlinux ] || { echo "no kernel BTF"; exit 77; }
echo_path=$(realpath /bin/echo)
script='syscall::write:entry /pid == $target/ {
	printf("%s|%s\n", d_path(&curthread->fs->pwd),
	    d_path(&curthread->mm->exe_file->f_path));
}'
shm=
trap '[ -z "$shm" ] || rmdir "$shm"' EXIT

# in DIR (a cd there), the cwd and executable dtrace prints are WANT's
check() {
	local dir=$1 want=$2
	shift 2
	(cd "$dir" && "$DTRACE" -q "$@" -n "$script" -c '/bin/echo hi') \
		>out 2>err || fail_run "dtrace failed in $dir"
	[ "$(grep '|' out)" = "$want|$echo_path" ] ||
		fail "in $dir: got '$(grep '|' out)', want '$want|$echo_path'"
}

mkdir -p "a b/c"
check "a b/c" "$(pwd -P)/a b/c"
check / /
check /proc/sys /proc/sys
if [ -d /dev/shm ]; then
	shm=$(mktemp -d /dev/shm/d_path.XXXXXX)
	check "$shm" "$shm"
fi
if mountpoint -q /sys/fs/bpf; then
	check /sys/fs/bpf /sys/fs/bpf
fi
mkdir -p deep/aaaa/bbbb/cccc/dddd
check deep/aaaa/bbbb/cccc/dddd /bbbb/cccc/dddd -x strsize=16
# a last component longer than strsize: nothing is left
(cd deep/aaaa && "$DTRACE" -q -x strsize=4 -n 'syscall::write:entry
	/pid == $target/ { printf("[%s]\n", d_path(&curthread->fs->pwd)); }' \
	-c '/bin/echo hi') >out 2>err || fail_run "dtrace failed with strsize=4"
grep -qx '\[\]' out || fail "strsize=4: got '$(cat out)', want '[]'"

# a directory removed while it is the cwd
mkdir gone
(cd gone && rmdir ../gone && "$DTRACE" -q -n "$script" -c '/bin/echo hi') \
	>out 2>err || fail_run "dtrace failed in a removed directory"
[ "$(grep '|' out)" = "$(pwd -P)/gone (deleted)|$echo_path" ] ||
	fail "removed cwd: got '$(grep '|' out)'"
exit $status
