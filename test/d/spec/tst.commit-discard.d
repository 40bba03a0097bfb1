/* @dtrace-opts: -q -x nspec=2 */
/* SPDX-License-Identifier: MIT */
/* Speculative records wait for their speculation's commit() (printed
 * then, in order) or discard() (never printed); a committed speculation
 * is free again. */
BEGIN
{
	a = speculation();
	b = speculation();
	printf("%d %d\n", a, b);
}

BEGIN
{
	speculate(a);
	printf("one\n");
}

BEGIN
{
	speculate(b);
	printf("two\n");
}

BEGIN
{
	speculate(a);
	printf("three\n");
}

BEGIN
{
	printf("before\n");
}

BEGIN
{
	discard(b);
}

BEGIN
{
	commit(a);
}

BEGIN
{
	printf("again %d\n", speculation());
	exit(0);
}
