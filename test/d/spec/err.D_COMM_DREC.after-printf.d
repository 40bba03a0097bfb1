/* SPDX-License-Identifier: MIT */
/* A clause that commits records no data before. */
BEGIN
{
	trace(1);
	commit(1);
}
