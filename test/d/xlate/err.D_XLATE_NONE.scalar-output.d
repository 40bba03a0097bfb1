/* SPDX-License-Identifier: MIT */
/* xlate to a type no translator yields (an int): DTrace finds no
 * translator (D_XLATE_NONE), whatever the output type. */
BEGIN
{
	trace(xlate <int>(1));
}
