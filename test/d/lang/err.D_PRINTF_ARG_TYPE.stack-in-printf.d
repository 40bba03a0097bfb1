/* SPDX-License-Identifier: MIT */
/* stack() has a type of its own, which no printf() conversion takes:
 * the conversion's check refuses it before the action is found in an
 * expression. */
BEGIN
{
	printf("%p\n", stack());
}
