/* SPDX-License-Identifier: MIT */
/* stack() has a type of its own, which a variable takes; the action is
 * then refused as a value (D_CG_EXPR). */
BEGIN
{
	x = stack();
}
