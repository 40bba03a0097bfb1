/* SPDX-License-Identifier: MIT */
/* A bit-field has no byte offset to give. */
struct s {
	int a;
	int b : 3;
};

BEGIN
{
	trace(offsetof(struct s, a));
	trace(offsetof(struct s, b));
	exit(0);
}
