/* SPDX-License-Identifier: MIT */
/* trace() of a void expression records nothing. */
BEGIN
{
	trace((void)0);
	exit(0);
}
