#!/bin/bash
# SPDX-License-Identifier: MIT
# The pid provider where the kernel has no uprobe_multi links (6.1): each
# site gets a perf-event uprobe of its own.  Entry arguments and return
# values of pidtarget's add(), and a glob over its functions.
set -u
. "$(dirname "$0")/check_lib.sh"
status=0
if [ -e /sys/bus/event_source/devices/uprobe ] &&
   grep -q uprobe_multi /proc/kallsyms 2>/dev/null; then
	echo "this kernel has uprobe_multi links: the fallback is not the default"
	exit 77
fi
"$DTRACE" -v -q -c "$PROGS/pidtarget 3" -n '
pid$target:a.out:add:entry { printf("entry %d %d\n", arg0, arg1); }
pid$target:a.out:add:return { printf("return %d\n", arg1); }
pid$target:a.out:sum*:return { @[probefunc] = count(); }
END { printa("%s %@d\n", @); }' >out 2>err
# (-v's stability report comes first: the firings' lines alone)
check fallback "$(grep -E '^(entry|return|sum8) ' out)" \
'entry 0 1\|return 1\|entry 1 2\|return 3\|entry 2 3\|return 5\|sum8 3\|'
# -v: dtrace says which way it attaches
check says-so "$(grep -o 'lacks uprobe_multi links.*' err)" \
'lacks uprobe_multi links \(Linux 6\.6\+\): attaching one perf-event uprobe per site\|'
exit $status
