/* SPDX-License-Identifier: MIT */
#pragma D frobnicate
BEGIN
{
}
