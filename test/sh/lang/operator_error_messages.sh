#!/bin/bash
# SPDX-License-Identifier: MIT
# Operands an operator does not take are refused with DTrace's tag and
# words: + and - take integers and pointers (D_OP_INCOMPAT otherwise),
# * and / arithmetic operands (D_OP_ARITH), % and the bitwise operators
# integers (D_OP_INT), comparisons operands of compatible types
# (D_OP_INCOMPAT), op= the rules of op; an action used as a value is void.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
. "$TESTDIR/sh/lib/check_lib.sh"

F="dtrace: failed to compile script x.d:"
S=$'struct s { int a; };\nstruct s v;\n'
want "struct + int" "${S}BEGIN { x = v + 1; }" \
	"$F [D_OP_INCOMPAT] line 3: operands have incompatible types: \"struct s\" + \"int\""
want "int - struct" "${S}BEGIN { x = 1 - v; }" \
	"$F [D_OP_INCOMPAT] line 3: operands have incompatible types: \"int\" - \"struct s\""
want "string * int" 'BEGIN { x = "a" * 2; }' \
	"$F [D_OP_ARITH] line 1: operator * requires operands of arithmetic type"
want "string % int" 'BEGIN { x = "a" % 2; }' \
	"$F [D_OP_INT] line 1: operator % requires operands of integral type"
want "string & int" 'BEGIN { x = "a" & 1; }' \
	"$F [D_OP_INT] line 1: operator & requires operands of integral type"
want "struct << int" "${S}BEGIN { x = v << 1; }" \
	"$F [D_OP_INT] line 3: operator << requires operands of integral type"
want "- string" 'BEGIN { x = -"a"; }' \
	"$F [D_OP_ARITH] line 1: operator - requires an operand of arithmetic type"
want "~ string" 'BEGIN { x = ~"a"; }' \
	"$F [D_OP_INT] line 1: operator ~ requires an operand of integral type"
want "string < int" 'BEGIN { x = "a" < 1; }' \
	"$F [D_OP_INCOMPAT] line 1: operands have incompatible types: \"string\" < \"int\""
want "struct == int" "${S}BEGIN { x = v == 1; }" \
	"$F [D_OP_INCOMPAT] line 3: operands have incompatible types: \"struct s\" == \"int\""
want "struct && int" "${S}BEGIN { x = v && 1; }" \
	"$F [D_OP_SCALAR] line 3: operator && requires operands of scalar type"
want "struct ?:" "${S}BEGIN { x = v ? 1 : 2; }" \
	"$F [D_OP_SCALAR] line 3: operator ?: expression must be of scalar type"
want "string +=" 'BEGIN { x = 1; x += "a"; }' \
	"$F [D_OP_INCOMPAT] line 1: operands have incompatible types: \"int\" += \"string\""
want "*= string" 'BEGIN { x = 1; x *= "a"; }' \
	"$F [D_OP_ARITH] line 1: operator *= requires operands of arithmetic type"
want "|= string" 'BEGIN { x = 1; x |= "a"; }' \
	"$F [D_OP_INT] line 1: operator |= requires operands of integral type"
# an action's value is void, what DTrace's checks see before its code
# generator refuses the action in an expression
want "action + int" 'BEGIN { x = 1 + trace(1); }' \
	"$F [D_OP_INCOMPAT] line 1: operands have incompatible types: \"int\" + \"void\""
want "exit of a string" 'BEGIN { x = exit("a"); }' \
	"$F [D_PROTO_ARG] line 1: exit( ) argument #1 is incompatible with prototype:
	prototype: int
	 argument: string"
want "action in a comma" 'BEGIN { x = (printf("a"), 2); }' \
	"$F [D_CG_EXPR] line 1: tracing function printf( ) may not be called from a D expression (D program context required)"
want "predicate" "${S}BEGIN /v/ { exit(0); }" \
	"$F [D_PRED_SCALAR] line 3: predicate result must be of scalar type"
# a translator cast of what no translator takes, to what none yields
want "xlate input" "${S}BEGIN { trace(xlate <struct s *>((char *)0)->a); }" \
	"$F [D_XLATE_NONE] line 3: cannot translate from \"char *\" to \"struct s *\""
want "xlate output" 'BEGIN { trace(xlate <int>(1)); }' \
	"$F [D_XLATE_NONE] line 1: cannot translate from \"int\" to \"int\""
exit $status
