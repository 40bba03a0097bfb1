/* SPDX-License-Identifier: MIT */
/* ufunc() and the other user address actions are of type "_usymaddr". */
BEGIN
{
	trace(ufunc(0) == 1);
}
