/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* A comparison with a constant from 0 to INT32_MAX is compiled with the
 * constant in the jump: signed and unsigned, 64 and 32 bits, pointers and
 * NULL, the constant on either side and at the boundary, give what they
 * give with both operands in registers (larger and negative constants). */
int64_t s;
uint64_t u;
int i;
unsigned int ui;

BEGIN
{
	s = -1;
	u = 0xffffffffffffffff;
	i = -1;
	ui = 0xffffffff;
	printf("%d %d %d %d\n", s < 0, s < 5, s >= 0, s == 0);
	printf("%d %d %d %d\n", u < 5, u > 2147483647, u != 0, u <= 0);
	printf("%d %d %d %d\n", i < 0, i > 2147483647, i == -1, i < -2);
	printf("%d %d %d %d\n", ui < 2147483647, ui > 2147483647,
	    ui == 4294967295, ui >= 0);
	printf("%d %d %d\n", 5 > s, 0 < u, 2147483647 < ui);
	printf("%d %d\n", (uint64_t)s > 2147483646, (int)u < 1);
	printf("%d %d\n", curthread != NULL, curthread == 0);
	exit(0);
}
