/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * if/else: exactly one branch runs; else binds to the nearest if.
 */
BEGIN
{
	g = 2;
	if (g == 2) printf("then\n"); else printf("wrong 1\n");
	if (g != 2) {
		printf("wrong 2\n");
	} else if (g == 2) {
		printf("else-if\n");
	} else {
		printf("wrong 3\n");
	}
	if (g == 3) if (g == 2) printf("wrong 4\n"); else printf("wrong 5\n");
	if (g == 2) { }
	printf("done\n");
	exit(0);
}
