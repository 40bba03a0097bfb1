/* @dtrace-opts: -c $B/test/progs/pidtarget */
/* SPDX-License-Identifier: MIT */
/* An offset inside add()'s first instruction (a 3-byte lea) is refused,
 * as DTrace refuses it, rather than skipped. */
pid$target:a.out:add:1
{
	exit(0);
}
