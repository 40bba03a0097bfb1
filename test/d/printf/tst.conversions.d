/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* printf conversions on integers and strings. */
BEGIN
{
	printf("%d %i %u %x %X %o %c %s %%\n", -5, 7, 42, 255, 255, 8, 65,
	    "str");
	printf("%5d|%-5d|%05d|%+d|% d\n", 42, 42, 42, 42, 42);
	printf("%#x %#o %#X\n", 255, 8, 255);
	printf("%10s|%-10s|%.2s|\n", "abc", "abc", "abc");
	printf("%ld %lld %lu %llx\n", -1L, -2LL, 3UL, 0xdeadbeefLL);
	printf("%*d|%-*d|\n", 4, 1, 4, 2);
	exit(0);
}
