/* SPDX-License-Identifier: MIT */
/* An unknown control directive. */
#frobnicate now
BEGIN
{
}
