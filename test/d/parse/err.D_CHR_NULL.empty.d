/* SPDX-License-Identifier: MIT */
BEGIN
{
	x = '';
}
