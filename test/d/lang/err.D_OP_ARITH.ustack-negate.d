/* SPDX-License-Identifier: MIT */
BEGIN
{
	trace(-ustack());
}
