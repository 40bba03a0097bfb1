#!/bin/bash
# SPDX-License-Identifier: MIT
# A D library's clauses are compiled, as DTrace compiles them, and never
# run: one that fails to compile (a type error, a description that
# matches nothing without -Z, with -l too) fails with the library's path
# and line; a
# library's `#pragma D option` sets the session's option (quiet, strsize),
# which the program's own pragma overrides, and a bad one fails with the
# library's path and line.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
. "$TESTDIR/sh/lib/check_lib.sh"

echo 'BEGIN { exit(0); }' > e.d
mkdir l5 l6
printf 'inline int z = 1;\n\nBEGIN\n{\n\tx = "s" * 1;\n}\n' > l5/clause.d
"$DTRACE" -x errtags -L l5 -s e.d >out 2>err
check "clause" "$(cat err)" \
	'dtrace: failed to compile script e.d: \[D_OP_ARITH\] "l5/clause.d", line 5: operator \* requires operands of arithmetic type\|'
printf '\nnosuch:::probe { }\n' > l6/nomatch.d
"$DTRACE" -x errtags -L l6 -s e.d >out 2>err
check "no match" "$(cat err)" \
	'dtrace: failed to compile script e.d: \[D_PDESC_ZERO\] "l6/nomatch.d", line 2: probe description nosuch:::probe does not match any probes\|'
# -l too names the library, where the program's own clause would get
# -l's "failed to match"
"$DTRACE" -L l6 -l -n BEGIN >out 2>err
check "no match, -l" "$(cat err)" \
	'dtrace: invalid probe specifier BEGIN: "l6/nomatch.d", line 2: probe description nosuch:::probe does not match any probes\|'
"$DTRACE" -l -n nosuch:::probe >out 2>err
check "no match, -l, program" "$(cat err)" \
	'dtrace: failed to match nosuch:::probe: No probe matches description\|'
out=$("$DTRACE" -Z -q -L l6 -n 'BEGIN { printf("ok\n"); exit(0); }' 2>err)
check "no match, -Z" "$out" 'ok\||'

# a library's options: quiet (no header, no probe line) and strsize,
# which the program's own pragma overrides
mkdir l7
printf '#pragma D option quiet\n#pragma D option strsize=4\n' > l7/opts.d
out=$("$DTRACE" -L l7 -n 'BEGIN { trace(lltostr(1234567)); exit(0); }' 2>err)
check "library options" "$out" '1234\||'
printf '#pragma D option strsize=6\nBEGIN { trace(lltostr(1234567)); exit(0); }\n' \
	> own.d
out=$("$DTRACE" -L l7 -s own.d 2>err)
check "program's option" "$out" '123456\||'
mkdir l8
printf '#pragma D option nosuchoption\n' > l8/opt.d
"$DTRACE" -x errtags -L l8 -s e.d >out 2>err
check "bad option" "$(cat err)" \
	'dtrace: failed to compile script e.d: \[D_PRAGMA_OPTSET\] "l8/opt.d", line 1: failed to set option .nosuchoption.: Invalid option name\|'
exit $status
