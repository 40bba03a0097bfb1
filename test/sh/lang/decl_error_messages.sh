#!/bin/bash
# SPDX-License-Identifier: MIT
# The messages of declaration and control-line errors read as DTrace's,
# word for word (the err.D_TAG tests check the tags only).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
. "$TESTDIR/sh/lib/check_lib.sh"

F="dtrace: failed to compile script x.d:"
want "duplicate member" $'struct foo {\n\tint x;\n\tchar x;\n};\n' \
	"$F [D_UNKNOWN] line 3: failed to define member 'x': Duplicate member or variable name"
want "forward member" $'struct foo { struct nosuch b; };\n' \
	"$F [D_DECL_INCOMPLETE] line 1: incomplete struct/union/enum struct nosuch: b"
want "void member" $'struct foo { void v; };\n' \
	"$F [D_DECL_VOIDOBJ] line 1: cannot have void member: v"
want "forward variable" $'struct nosuch x;\nBEGIN { exit(0); }\n' \
	"$F [D_DECL_INCOMPLETE] line 1: incomplete struct/union/enum struct nosuch: x"
want "void key" $'int a[string, void k];\n' \
	"$F [D_DECL_PROTO_TYPE] line 1: array prototype may not use parameter of type void: k, parameter #2"
want "void not sole" $'provider p { probe q(int, void); };\n' \
	"$F [D_DECL_PROTO_VOID] line 1: void must be sole parameter"
want "void named" $'provider p { probe q(void x); };\n' \
	"$F [D_DECL_PROTO_NAME] line 1: void parameter may not have a name: x"
want "translated unnamed" $'provider p { probe q(int, long) : (long, int); };\n' \
	"$F [D_DECL_PROTO_NAME] line 1: parameter declaration requires a name: parameter #1"
want "translated not native" $'provider p { probe q(int x) : (int y); };\n' \
	"$F [D_DECL_PROTO_FORM] line 1: parameter is not declared in probe output prototype: y, parameter #1"
want "native twice" $'provider p { probe q(int x, long x); };\n' \
	"$F [D_DECL_PROTO_FORM] line 1: parameter is already declared in probe input prototype: x, parameter #2"
want "dimension too big" $'int x[88294967295];\n' \
	"$F [D_DECL_ARRBIG] line 1: array dimension too big"
want "probe twice" $'provider p {\n\tprobe q();\n\tprobe q(int);\n};\n' \
	"$F [D_PROV_PRDUP] line 3: probe redeclared: p:q"
want "provider, new probe" $'provider p { probe q(); };\nprovider p {\n\tprobe r();\n};\n' \
	"$F [D_PROV_INCOMPAT] line 3: provider interface mismatch: p
	 current: probe p:r defined
	previous: probe p:r not defined"
want "provider, argument count" $'provider p { probe q(int); };\nprovider p { probe q(); };\n' \
	"$F [D_PROV_INCOMPAT] line 2: probe p:q output prototype mismatch:
	 current: 0 args
	previous: 1 arg"
want "provider, argument type" $'provider p { probe q(int); };\nprovider p { probe q(char *); };\n' \
	"$F [D_PROV_INCOMPAT] line 2: probe p:q output prototype argument #1 mismatch:
	 current: char *
	previous: int"
want "variable type" $'int x;\nchar x;\n' \
	"$F [D_DECL_IDRED] line 2: identifier redeclared: x
	 current: scalar char
	previous: scalar int"
want "key type" $'int a[int];\nint a[string];\n' \
	"$F [D_DECL_IDRED] line 2: identifier redeclared: a
	 current: associative array, key #1 of type string
	previous: associative array, key #1 of type int"
want "tuple length" $'int a[int];\nint a[int, int];\n' \
	"$F [D_DECL_IDRED] line 2: identifier redeclared: a
	 current: associative array of int, tuple length 2
	previous: associative array of int, tuple length 1"
want "built-in variable" $'int pid;\n' \
	"$F [D_DECL_IDRED] line 1: built-in identifier redeclared: pid"
want "built-in function" $'BEGIN { }\nstring trace[int];\n' \
	"$F [D_DECL_IDRED] line 2: built-in identifier redeclared: trace"
want "read as a scalar" $'BEGIN { y = self->x; self->x[1] = 2; }\n' \
	"$F [D_IDENT_BADREF] line 1: scalar 'x' may not be referenced as associative array"
want "short and long" $'BEGIN { i = (long short)0; }\n' \
	"$F [D_UNKNOWN] line 1: failed to resolve type short long : Unknown type name"
want "char and short" $'short char c;\n' \
	"$F [D_DECL_CHARATTR] line 1: invalid type declaration: short and long may not be used with char type"
want "unsigned typedef" $'typedef int myint_t;\nunsigned myint_t x;\n' \
	"$F [D_DECL_SIGNINT] line 2: invalid type declaration: signed and unsigned may only be used with integer type"
want "control line at the end" $'BEGIN { exit(0); }\n#pragma D option quiet' \
	"$F [D_SYNTAX] line 2: end-of-file encountered before end of control line"

# an offset inside an instruction of the process named
T=$B/test/progs/pidtarget
if [ -x "$T" ]; then
	"$DTRACE" -x errtags -c "$T" -n 'pid$target:a.out:add:1 { exit(0); }' \
		>out 2>err
	rc=$?
	w='dtrace: invalid probe specifier pid$target:a.out:add:1 { exit(0); }: [D_PROC_ALIGN] offset 0x1 is not aligned on an instruction'
	if [ $rc != 1 ] || ! grep -qxF -- "$w" err; then
		echo "pid offset: exit $rc, stderr:"; cat err
		echo "wanted: $w"; status=1
	fi
fi
exit $status
