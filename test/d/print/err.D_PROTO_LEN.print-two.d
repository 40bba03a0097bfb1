/* SPDX-License-Identifier: MIT */
/* print() takes exactly one value. */
BEGIN
{
	print(1, 2);
}
