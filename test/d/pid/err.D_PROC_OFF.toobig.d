/* @dtrace-opts: -c $B/test/progs/pidtarget */
/* SPDX-License-Identifier: MIT */
/* An offset past the end of the function, in whichever module has it. */
pid$target::add:100000
{
	exit(0);
}
