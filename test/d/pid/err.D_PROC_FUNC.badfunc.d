/* @dtrace-opts: -c $B/test/progs/pidtarget */
/* SPDX-License-Identifier: MIT */
/* A function the named module does not have (DTrace: "failed to lookup
 * 'nosuchfunc' in module 'a.out'"). */
pid$target:a.out:nosuchfunc:entry
{
	exit(0);
}
