#!/bin/bash
# SPDX-License-Identifier: MIT
# A process whose executable has no symbols at all (static and stripped:
# no .symtab, no .dynsym) is grabbed without harm: its module offers no
# pid probes, which the usual message says (the empty symbol table used to
# reach qsort() with NULL, which UBSan aborts on).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
printf 'int main(void) { return 0; }\n' >nosyms.c
cc -static -s -o nosyms nosyms.c 2>/dev/null || exit 77
if readelf -S nosyms | grep -Eq '\.(symtab|dynsym)'; then
	echo "nosyms has symbols"; exit 1
fi

"$DTRACE" -q -n 'pid$target:a.out::entry { trace(1); }' -c ./nosyms \
	>out 2>err
rc=$?
if [ $rc != 1 ] ||
   ! grep -Eqx 'dtrace: invalid probe specifier pid\$target:a.out::entry \{ trace\(1\); \}: probe description pid[0-9]+:a.out::entry does not match any probes' err; then
	echo "exit $rc (expected 1); stderr:"; cat err
	exit 1
fi
exit 0
