/* SPDX-License-Identifier: MIT */
/* Attributes that are not stability/stability/class. */
#pragma D attributes Solid/Stable/Common provider foo provider
BEGIN
{
	exit(0);
}
