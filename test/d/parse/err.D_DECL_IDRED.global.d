/* SPDX-License-Identifier: MIT */
/* A global declared again with another type (the same type is allowed). */
int x;
int x;
char x;
BEGIN
{
}
