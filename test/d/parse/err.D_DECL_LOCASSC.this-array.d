/* SPDX-License-Identifier: MIT */
/* this-> variables are clause-local: no associative array. */
this int x[int];
BEGIN
{
}
