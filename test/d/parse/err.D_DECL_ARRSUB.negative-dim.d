/* SPDX-License-Identifier: MIT */
/* An array dimension must be a positive constant. */
int a[-2];
BEGIN
{
}
