#!/bin/bash
# SPDX-License-Identifier: MIT
# A glob over kernel functions (fbt::vfs_*:entry, a few dozen functions,
# some of which fentry cannot read: more than 6 arguments, a pointer to a
# pointer) starts and counts systarget's vfs_read: by default (fentry,
# kprobes for those) and with kprobes without a warning; forced to fentry
# the others are left out with a warning each (the modes forced as
# -x fbtmode=kprobe, the issue's spelling, and -x fbt.mode=fentry).
set -u
. "$(dirname "$0")/check_lib.sh"
status=0
for opt in "" "-x fbtmode=kprobe" "-x fbt.mode=fentry"; do
	"$DTRACE" $opt -q -c "$PROGS/systarget" \
		-n 'fbt::vfs_*:entry /pid == $target/ { @[probefunc] = count(); }
		    END { printa("%s %@d\n", @); }' >out 2>err
	rc=$?
	check "status $opt" "$rc" '0\|'
	check "vfs_read $opt" "$(grep '^vfs_read ' out)" 'vfs_read [1-9][0-9]*\|'
	if [ -z "$opt" ] || [ "$opt" = "-x fbtmode=kprobe" ]; then
		check "no warning $opt" "$(grep -v 'matched [0-9]* probes' err)" '\|'
	else
		check "warnings $opt" "$(grep -v 'matched [0-9]* probes' err | sed 's/: fbt: [a-z_0-9]* left out: .*/: left out/' | sort -u)" \
			'(dtrace: left out\|)?'
	fi
done
exit $status
