/* SPDX-License-Identifier: MIT */
/* An action whose void value nothing uses is still no expression: the
 * code generator's refusal (D_CG_EXPR). */
BEGIN
{
	x = (trace(1), 2);
}
