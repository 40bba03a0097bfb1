/* SPDX-License-Identifier: MIT */
/* A variable cannot be void. */
void x;
BEGIN
{
}
