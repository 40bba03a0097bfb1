/* SPDX-License-Identifier: MIT */
/*
 * A probe line without data ends with a space; END is probe 2 and fires
 * after exit().
 */
BEGIN
{
	exit(0);
}

END
{
}
