/* @dtrace-opts: -c $B/test/progs/pidtarget */
/* SPDX-License-Identifier: MIT */
/* Only entry, return and offsets name pid probes. */
pid$target:a.out:add:beginning
{
	exit(0);
}
