/* SPDX-License-Identifier: MIT */
BEGIN
{
	x = 0129;
}
