/* SPDX-License-Identifier: MIT */
/* A bit-field has an integer type: not a pointer. */
struct s {
	char *p : 3;
};

BEGIN
{
	exit(0);
}
