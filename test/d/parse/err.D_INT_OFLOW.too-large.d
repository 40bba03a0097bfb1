/* SPDX-License-Identifier: MIT */
BEGIN
{
	x = 0x12345678123456781;
}
