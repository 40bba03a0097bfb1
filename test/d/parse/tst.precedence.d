/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * C's precedence and associativity, and D's ^^ between || and &&.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", 1 + 2 * 3, (1 + 2) * 3, 10 - 4 - 3, 2 << 1 + 1);
	printf("%d %d %d\n", 1 || 0 ^^ 1, 1 ^^ 1 && 0, 7 & 3 == 3);
	printf("%d %d %d\n", -3 / 2, 17 % 5 * 2, ~0 + 2);
	a = b = 5;
	printf("%d %d %d\n", a, b, 1 ? 2 : 0 ? 3 : 4);
	exit(0);
}
