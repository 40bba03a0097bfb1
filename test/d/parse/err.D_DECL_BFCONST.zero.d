/* SPDX-License-Identifier: MIT */
/* A named bit-field has a positive size. */
struct s {
	int a : 0;
};
BEGIN
{
}
