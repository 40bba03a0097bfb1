/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Associative arrays: string, integer and tuple keys; unset reads 0. */
BEGIN
{
	a["x"] = 1;
	a["y"] = 2;
	a["x"] += 10;
	b[1, "one"] = 100;
	b[2, "two"] = 200;
	printf("%d %d %d\n", a["x"], a["y"], a["none"]);
	printf("%d %d %d\n", b[1, "one"], b[2, "two"], b[1, "two"]);
	a["y"] = 0;
	printf("%d\n", a["y"]);
	exit(0);
}
