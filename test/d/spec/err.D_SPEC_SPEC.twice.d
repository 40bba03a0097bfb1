/* SPDX-License-Identifier: MIT */
/* One speculate() a clause. */
BEGIN
{
	speculate(1);
	speculate(2);
}
