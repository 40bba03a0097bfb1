#!/bin/bash
# SPDX-License-Identifier: MIT
# Descriptions are taken one after the other, as DTrace's dtrace(1) takes
# its statements: -l lists each description's probes in turn (a probe two
# of them match is listed twice), says "failed to match" for one that
# matches nothing and goes on with the others, with status 0 (DTrace
# reports it with error(), which leaves the status alone); and "matched N
# probes" sums what each description matched.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

# want NAME GOT EXPECTED
want() {
	if [ "$2" != "$3" ]; then
		echo "$1: got"; printf '%s\n' "$2" | sed 's/^/    /'
		echo "  expected"; printf '%s\n' "$3" | sed 's/^/    /'
		status=1
	fi
}
row() {		# ID NAME: a dtrace provider line of dtrace -l
	printf '%5d %10s %17s %33s %s\n' "$1" dtrace '' '' "$2"
}
header=$(printf '%5s %10s %17s %33s %s' ID PROVIDER MODULE FUNCTION NAME)
nomatch="dtrace: failed to match nosuch:::: No probe matches description"

"$DTRACE" -l -n 'dtrace:::END' -n 'nosuch:::' >out 2>err
want "list, one matching nothing: status" $? 0
want "list, one matching nothing" "$(cat out)" "$header
$(row 2 END)"
want "list, one matching nothing: stderr" "$(cat err)" "$nomatch"

"$DTRACE" -l -n 'nosuch:::' >out 2>err
want "list, nothing matching: status" $? 0
want "list, nothing matching" "$(cat out)" "$header"
want "list, nothing matching: stderr" "$(cat err)" "$nomatch"

# -Z changes nothing here: DTrace's list_stmt() says it whatever the flags
"$DTRACE" -l -Z -n 'nosuch:::' >out 2>err
want "list -Z, nothing matching: status" $? 0
want "list -Z, nothing matching" "$(cat out)" "$header"
want "list -Z, nothing matching: stderr" "$(cat err)" "$nomatch"

"$DTRACE" -l -n 'dtrace:::END' -n 'dtrace:::BEGIN' -n 'dtrace:::' >out 2>err
want "list in the order of the descriptions: status" $? 0
want "list in the order of the descriptions" "$(cat out)" "$header
$(row 2 END)
$(row 1 BEGIN)
$(row 1 BEGIN)
$(row 2 END)
$(row 3 ERROR)"

# DTrace's countdown.d: BEGIN and two clauses on one tick probe, 3 probes
printf 'BEGIN { i = 1; }\ntick-10ms /i > 0/ { i--; }\ntick-10ms /i == 0/ { exit(0); }\n' >countdown.d
"$DTRACE" -e -s countdown.d >out 2>err
want "matched, script: status" $? 0
want "matched, script" "$(cat err)" "dtrace: script 'countdown.d' matched 3 probes"
"$DTRACE" -e -n 'BEGIN, END { x = 1; }' >out 2>err
want "matched, two descriptions: status" $? 0
want "matched, two descriptions" "$(cat err)" "dtrace: description 'BEGIN, END ' matched 2 probes"
"$DTRACE" -e -n 'BEGIN { x = 1; } BEGIN { x = 2; }' >out 2>err
want "matched, one probe twice: status" $? 0
want "matched, one probe twice" "$(cat err)" "dtrace: description 'BEGIN ' matched 2 probes"
exit $status
