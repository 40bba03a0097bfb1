/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* A string indexes as an array of char: literals, variables of every
 * class, built-in variables; past strsize it reads 0.  An associative
 * array keyed on integers is still one. */
BEGIN
{
	s = "hello";
	self->s = "thread";
	this->s = "clause";
	a[1] = "one";
	printf("%c %c %c %c %c\n", s[1], self->s[0], this->s[5], "abc"[2],
	    a[1][2]);
	printf("%d %d %d\n", s[5], s[100000], execname[0] == 'd');
	exit(0);
}
