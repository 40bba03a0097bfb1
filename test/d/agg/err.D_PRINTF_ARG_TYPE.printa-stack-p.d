/* SPDX-License-Identifier: MIT */
/* A stack key prints with %k, not %p. */
BEGIN
{
	@a[stack()] = count();
	printa("%p %@d\n", @a);
	exit(0);
}
