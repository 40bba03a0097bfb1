/* @dtrace-opts: -q -x strsize=4 */
/* SPDX-License-Identifier: MIT */
/* A key naming the probe is cut at strsize characters, as any string
 * key, and merges with the same string cut likewise. */
BEGIN
{
	@[probename] = count();
	@[probeprov] = count();
	@["BEGI"] = count();
	exit(0);
}
