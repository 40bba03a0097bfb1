/* SPDX-License-Identifier: MIT */
/* print() of what points to a type of size 0 (a forward declaration) has
 * nothing to show. */
struct fwd;

BEGIN
{
	print((struct fwd *)alloca(8));
	exit(0);
}
