/* SPDX-License-Identifier: MIT */
BEGIN
{
	/* never closed
}
