/* SPDX-License-Identifier: MIT */
/* An array dimension must be a positive constant. */
int n;
int a[n];
BEGIN
{
}
