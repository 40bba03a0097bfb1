/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* An unset element of a string associative array reads as NULL, as in
 * DTrace: it compares equal to NULL (and, as a string, to ""), and used
 * as a string it faults with invalid address (0x0).  Assigning NULL
 * deletes an element; an empty string is kept. */
string s[int];

BEGIN
{
	printf("unset: %d %d %d\n", s[1] == NULL, s[1] != NULL, s[1] == "");
	s[2] = "two";
	s[3] = "";
	printf("set: %d %d [%s] [%s]\n", s[2] == NULL, s[3] == NULL, s[2],
	    s[3]);
	s[2] = NULL;
	printf("deleted: %d\n", s[2] == NULL);
	self->k["a"] = "x";
	self->k["a"] = NULL;
	printf("self: %d %d\n", self->k["a"] == NULL, self->k["b"] == NULL);
}

BEGIN
{
	printf("this clause faults: ");
	trace(s[1]);
}

BEGIN
{
	exit(0);
}
