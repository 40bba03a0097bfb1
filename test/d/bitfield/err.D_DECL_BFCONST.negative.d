/* SPDX-License-Identifier: MIT */
/* A bit-field's width is a positive constant. */
struct s {
	int a : 2 - 3;
};

BEGIN
{
	exit(0);
}
