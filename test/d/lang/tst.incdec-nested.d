/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Pre- and post-increment and decrement inside integer expressions under
 * ?:, && and ||: each operand sees the variable as its side effects left
 * it, from left to right, and || stops at its true left side.  Each test
 * opens its clause, where no register has been written yet: the result
 * register of ?:, && and || is taken before their operands need every
 * register, so it is spilled before it is written. */
BEGIN
{
	x = 1;
}

BEGIN
{
	printf("%d\n", x++ > 0 ? (++x + x++) * (x-- - --x) : 0);
}

BEGIN
{
	printf("%d\n", (x-- && --x) + (x++ || ++x) *
	    ((x++ + 1) * (++x + 2)));
}

BEGIN
{
	printf("%d\n", x);
	exit(0);
}
