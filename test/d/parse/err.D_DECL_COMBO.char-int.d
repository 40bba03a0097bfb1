/* SPDX-License-Identifier: MIT */
/* Type specifiers that do not combine. */
char int x;
BEGIN
{
}
