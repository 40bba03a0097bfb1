/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * Variables and providers declared again the same way are the same ones,
 * as in DTrace.
 */
int x;
int x;
self string s[int, string];
self string s[int, string];

provider p {
	probe q(int, char *);
};
provider p {
	probe q(int, char *);
};

BEGIN
{
	x = 7;
	self->s[1, "a"] = "one";
	printf("%d %s\n", x, self->s[1, "a"]);
	exit(0);
}
