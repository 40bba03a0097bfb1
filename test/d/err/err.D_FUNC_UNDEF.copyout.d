/* @dtrace-opts: -w */
/* SPDX-License-Identifier: MIT */
/* copyout() is refused by name: dtrace does not write the memory of the
 * processes it traces. */
BEGIN
{
	copyoutstr("x", 0, 2);
}
