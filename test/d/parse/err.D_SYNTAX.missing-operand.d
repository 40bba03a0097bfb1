/* SPDX-License-Identifier: MIT */
BEGIN
{
	x = 1 +;
}
