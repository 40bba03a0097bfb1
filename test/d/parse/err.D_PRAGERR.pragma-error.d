/* SPDX-License-Identifier: MIT */
/* #pragma error stops the compile with its words. */
#pragma error this is an error message
BEGIN
{
}
