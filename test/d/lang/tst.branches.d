/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * Conditions compile to jumps (dt_cg_branch()) wherever they are tested:
 * predicates, if, ?: and the operands of !, && and ||.  Each form is
 * checked both ways, with signed and unsigned operands, strings, NULL,
 * constants beyond 32 bits, and comparisons nested deep enough that their
 * operands are spilled.
 */
int64_t neg;
uint64_t big;
string s, t;

BEGIN
{
	neg = -1;
	big = 0xffffffff00000000;
	s = "abc";
	t = "abd";
	a = 1; b = 2; c = 3; d = 4;
}

BEGIN /neg < 0/ { printf("neg < 0\n"); }
BEGIN /!(neg < 0)/ { printf("never: !(neg < 0)\n"); }
BEGIN /big > 0x7fffffff/ { printf("big > 0x7fffffff\n"); }
BEGIN /big < 0x100000000/ { printf("never: big < 0x100000000\n"); }
BEGIN /(uint64_t)neg > 1/ { printf("(uint64_t)neg > 1\n"); }
BEGIN /s < t && s != t/ { printf("s < t, s != t\n"); }
BEGIN /s == t || !(s <= t)/ { printf("never: s == t\n"); }
BEGIN /s != NULL/ { printf("s != NULL\n"); }
BEGIN /a == 1 && (b == 3 || c == 3) && !(d != 4)/ { printf("a && (b || c) && !d\n"); }
BEGIN /a == 2 || b == 1 || !c/ { printf("never: a || b || !c\n"); }
BEGIN /a/ { printf("a\n"); }
BEGIN /!a/ { printf("never: !a\n"); }
BEGIN /a + (b + (c + (d < a + b + c ? 1 : 100))) == 7/ { printf("spilled ?: in a predicate\n"); }
BEGIN /a + (b + (c + (d == 4 && c == 3 ? 10 : 0))) == 16/ { printf("spilled &&\n"); }

BEGIN
{
	x = a + (b + (c + ((a + b) < (c + d) ? 1 : 2)));
	y = a + (b + (c + ((a + b) > (c + d) ? 1 : 2)));
	printf("%d %d\n", x, y);
	printf("%d %d %d %d\n", a && b, a && !b, !a || b, !a || !b);
	printf("%d %d %d\n", neg < 0 && big > 0, big >= 0x100000000, !(s > t));
	if (a == 1 && !(b < 1))
		printf("if taken\n");
	else
		printf("never: else\n");
	if (s > t || c > d)
		printf("never: if\n");
	else
		printf("else taken\n");
	printf("%s %s\n", neg < 0 ? "yes" : "no", s >= t ? "yes" : "no");
	exit(0);
}
