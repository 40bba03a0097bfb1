/* SPDX-License-Identifier: MIT */
/* A long bit-field holds 64 bits at most. */
struct s {
	long a : 65;
};

BEGIN
{
	exit(0);
}
