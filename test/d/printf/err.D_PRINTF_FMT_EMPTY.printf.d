/* SPDX-License-Identifier: MIT */
/* An empty format prints nothing: DTrace refuses it. */
BEGIN
{
	printf("");
}
