#!/bin/bash
# SPDX-License-Identifier: MIT
# A site of <dtrace/usdt.h> (a nop and a 5-byte nop) on the older kernel,
# which has no optimized uprobe: the probe goes on the nop the note names
# (-x debug says so) and reads its arguments, one read relative to %rip;
# forced onto the 5-byte nop (which this kernel single-steps), the same.
set -u
. "$(dirname "$0")/check_lib.sh"
status=0
for mode in auto nop5; do
	"$DTRACE" -x usdt.sitemode=$mode -x debug -q -c "$PROGS/usdt_sites 3" -n '
	sites$target:::tick { printf("tick %d %d\n", args[0], args[1]); }' >out 2>err
	check $mode "$(grep '^tick' out)" 'tick 0 0\|tick 1 3\|tick 2 6\|'
	case $mode in
	auto) want='on the nop the note names (classic: the kernel does not optimize uprobes)' ;;
	nop5) want='on the 5-byte nop (usdt.sitemode=nop5; the kernel single-steps it)' ;;
	esac
	grep -qF "$want" err || { echo "FAIL $mode: -x debug does not say: $want"; cat err; status=1; }
done
exit $status
