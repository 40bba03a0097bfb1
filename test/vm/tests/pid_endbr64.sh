#!/bin/bash
# SPDX-License-Identifier: MIT
# Entries that begin with endbr64 on the older kernel, which has no
# optimized uprobe: bench_loop's bench_fn_endbr (endbr64, push %rbp) and
# bench_fn_endbr5 (endbr64, a 5-byte nop) get their entry probes past the
# endbr64 (-x debug says so; on the 5-byte nop, which this kernel
# single-steps), and read their arguments and the function's address as
# on the endbr64 (-x pid.entry=classic); the return probe fires once a
# call.
set -u
. "$(dirname "$0")/check_lib.sh"
status=0
for fn in endbr endbr5; do
	for mode in auto classic; do
		"$DTRACE" -x pid.entry=$mode -x debug -q -c "$PROGS/bench_loop 3 $fn" -n "
		pid\$target:a.out:bench_fn_$fn:entry { printf(\"%d %A\\n\", arg0, uregs[R_PC]); }
		pid\$target:a.out:bench_fn_$fn:return { printf(\"= %d\\n\", arg1); }" \
			>out 2>err
		check "$fn $mode" "$(grep -v '^bench_loop' out | grep .)" \
"0 bench_loop\`bench_fn_$fn\|= 1\|1 bench_loop\`bench_fn_$fn\|= 2\|2 bench_loop\`bench_fn_$fn\|= 3\|"
		case $fn.$mode in
		endbr.auto) want="placed past the function's endbr64" ;;
		endbr5.auto) want="placed past the function's endbr64, on a 5-byte nop (the kernel does not optimize it)" ;;
		*) want="placed on the function's endbr64 (pid.entry=classic)" ;;
		esac
		grep -qF "a.out:bench_fn_$fn:entry: $want" err ||
			{ echo "FAIL $fn $mode: -x debug does not say: $want"; cat err; status=1; }
	done
done
exit $status
