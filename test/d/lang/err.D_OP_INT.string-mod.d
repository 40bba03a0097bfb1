/* SPDX-License-Identifier: MIT */
/* % takes integers, as the bitwise operators do (D_OP_INT). */
BEGIN
{
	x = "text" % 2;
}
