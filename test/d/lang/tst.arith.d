/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Integer arithmetic follows C: truncating division, sign of %. */
BEGIN
{
	printf("%d %d %d %d\n", 7 + 3, 7 - 10, 6 * 7, 7 / 2);
	printf("%d %d %d %d\n", -7 / 2, 7 % 3, -7 % 3, 7 % -3);
	printf("%d %d %d %d\n", 1 << 10, 1024 >> 3, -16 >> 2, 0xff & 0x0f);
	printf("%d %d %d %d\n", 0xf0 | 0x0f, 5 ^ 3, ~0, -(-5));
	printf("%d %d %d %d %d\n", !0, !7, 3 > 2, 3 <= 2, 2 == 2);
	printf("%d %d %d\n", 1 && 0, 1 || 0, 1 ^^ 1);
	printf("%d %d\n", 5 > 3 ? 10 : 20, 0 ? 10 : 20);
	exit(0);
}
