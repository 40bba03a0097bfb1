/* SPDX-License-Identifier: MIT */
int x;
int x;
BEGIN
{
}
