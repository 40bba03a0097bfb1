#!/bin/bash
# SPDX-License-Identifier: MIT
# dtrace -v: after each program's "matched" line, its stability report as
# DTrace prints it: the least description attributes of the probes its
# clauses matched (as -l -v shows them; Unstable/Unstable/Common for a
# description that matched none), and the least attributes of its
# statements: those of the built-in variables and functions they name
# (curthread Stable/Private/Common, uregs Stable/Private/ISA, htonl()
# Evolving/Evolving/Common, the others Stable/Stable/Common) and of the
# probes' arguments where they name args[ ].  A script is reported by its
# file name, a description cut where its clause starts.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog typed

# report HEADER D1 D2 D3 S1 S2 S3: the report DTrace prints
report() {
	printf '\nStability attributes for %s:\n\n' "$1"
	printf '\tMinimum Probe Description Attributes\n'
	printf '\t\tIdentifier Names: %s\n\t\tData Semantics:   %s\n' "$2" "$3"
	printf '\t\tDependency Class: %s\n\n' "$4"
	printf '\tMinimum Statement Attributes\n'
	printf '\t\tIdentifier Names: %s\n\t\tData Semantics:   %s\n' "$5" "$6"
	printf '\t\tDependency Class: %s\n\n' "$7"
}

# expect NAME: out must be what exp holds, then the empty line dtrace
# ends with (the CPU that ran BEGIN as 0)
expect() {
	echo >>exp
	sed -i 's/^  [0-9]      1  /  0      1  /' out
	diff exp out >/dev/null || { fail "$1"; diff exp out; cat err; }
}

"$DTRACE" -v -n 'BEGIN { trace(1); exit(0); }' >out 2>err ||
	fail "BEGIN: dtrace failed"
{ report 'description BEGIN ' Evolving Evolving Common Stable Stable Common
  printf 'CPU     ID                    FUNCTION:NAME\n'
  printf '  0      1                           :BEGIN           1\n'
} >exp
expect "BEGIN"
grep -qx "dtrace: description 'BEGIN ' matched 1 probe" err ||
	fail "BEGIN: no matched line"

"$DTRACE" -q -v -n 'BEGIN { printf("%d\n", curthread != 0); exit(0); }' \
	>out 2>err
{ report 'description BEGIN ' Evolving Evolving Common Stable Private Common
  echo 1; } >exp
expect "curthread"

"$DTRACE" -q -v -n 'BEGIN /uregs[R_PC] != 0/ { exit(0); }' >out 2>err
report 'description BEGIN ' Evolving Evolving Common Stable Private ISA >exp
expect "uregs"

cat >prog.d <<'D'
BEGIN { exit(0); }
END { printf("%x\n", htonl(1)); }
D
"$DTRACE" -q -v -s prog.d >out 2>err
{ report 'script prog.d' Evolving Evolving Common Evolving Evolving Common
  echo 1000000; } >exp
expect "script"

"$DTRACE" -q -v -Z -n 'nosuch:::probe { }' -n 'BEGIN { exit(0); }' \
	>out 2>err
{ report 'description nosuch:::probe ' Unstable Unstable Common Stable \
	Stable Common
  report 'description BEGIN ' Evolving Evolving Common Stable Stable Common
} >exp
expect "unmatched"

"$DTRACE" -q -v -c "$T 1" -n 'pid$target:a.out:area:entry {
	printf("%d\n", args[0]->x); }' >out 2>err
{ report 'description pid$target:a.out:area:entry ' Evolving Evolving \
	Common Evolving Evolving Common
  echo 1; echo "done 4"; } >exp
echo >>exp
sort -o out out; sort -o exp exp	# the program's line and dtrace's race
diff exp out >/dev/null || { fail "pid"; diff exp out; cat err; }
exit $status
