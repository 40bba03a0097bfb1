/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Casts truncate and extend as C does. */
BEGIN
{
	printf("%d %d %d\n", (char)257, (char)255, (uint8_t)-1);
	printf("%d %d\n", (short)65535, (uint16_t)-1);
	printf("%d %u\n", (int)4294967297LL, (uint32_t)-1);
	printf("%lld %llu\n", (long long)-1, (unsigned long long)(int)-1);
	printf("%d\n", (int)(2147483647 + 1));
	x = 255;
	printf("%d %d\n", (char)x, (int8_t)(x + 1));
	exit(0);
}
