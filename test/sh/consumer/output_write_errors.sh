#!/bin/bash
# SPDX-License-Identifier: MIT
# Output that cannot be written is an error, never a silent truncation:
# -o to /dev/full, standard output on /dev/full, and -o on a full disk (a
# 64 KiB tmpfs) each end with exit status 1 and a message naming the file
# and "No space left on device"; what fits on the disk is written whole up
# to the failure.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

expect_failure() {	# NAME STATUS STDERR-PATTERN
	if [ "$2" != 1 ] || ! grep -Eqx -- "$3" err; then
		echo "$1: exit status $2 (expected 1); stderr:"; head -20 err
		status=1
	fi
}

"$DTRACE" -q -n 'BEGIN { printf("hello\n"); exit(0); }' -o /dev/full \
	>out 2>err
expect_failure "-o /dev/full" $? \
	"dtrace: failed to write output file '/dev/full': No space left on device"

"$DTRACE" -q -n 'BEGIN { printf("hello\n"); exit(0); }' >/dev/full 2>err
expect_failure "stdout on /dev/full" $? \
	'dtrace: failed to write standard output: No space left on device'

# a full disk while tracing
mnt=$(mktemp -d)
mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null || exit 77
trap 'umount "$mnt"; rmdir "$mnt"' EXIT
"$DTRACE" -q -c "$T 20000" -o "$mnt/trace.txt" \
	-n 'pid$target:a.out:add:entry { printf("add %d %d\n", arg0, arg1); }' \
	>out 2>err
expect_failure "-o on a full tmpfs" $? \
	"dtrace: failed to write output file '$mnt/trace.txt': No space left on device"
size=$(stat -c %s "$mnt/trace.txt")
if [ "$size" -lt 32768 ]; then
	echo "full tmpfs: only $size bytes written before the failure"
	status=1
fi
# every line that was written whole is a record as printed
bad=$(sed '$d' "$mnt/trace.txt" | awk '$1 != "add" || $3 != $2 + 1' | head -3)
if [ -n "$bad" ]; then
	echo "full tmpfs: damaged lines before the failure:"; echo "$bad"
	status=1
fi
exit $status
