/* @dtrace-opts: -q -x strsize=249 */
/* SPDX-License-Identifier: MIT */
/* A literal stored whole into a variable (a string's room copied from the
 * string table) loads at any strsize, whatever the literal's offset. */
BEGIN
{
	self->s[1, "a"] = "one";
	x = "ab";
	printf("%s %s\n", self->s[1, "a"], x);
	exit(0);
}
