/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* h and hh cut an integer to a short or a char, as C's printf does;
 * l and ll change nothing; %lc and %wc print a character, %ws a string;
 * %C prints a character escaped. */
BEGIN
{
	printf("%hd %hi %hx %hX %ho %hu\n", 65537, 65537, 65537, -1, -1, -1);
	printf("%hd %hhd %hhx %hhu %d\n", 32768, 255, 0x1234, 256, 65537);
	printf("%ld %lld %lx\n", 65537, 65537, 65537);
	printf("%lc%wc %ws\n", 'o', 'k', "wide");
	printf("[%C][%C][%C][%C][%3C][%-3C]\n", 'a', '\n', '"', 1, 'b', 'c');
	exit(0);
}
