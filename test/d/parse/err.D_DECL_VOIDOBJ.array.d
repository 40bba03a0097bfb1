/* SPDX-License-Identifier: MIT */
/* An array cannot hold void. */
void x[4];
BEGIN
{
}
