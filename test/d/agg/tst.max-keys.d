/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Integer keys (int: 4 bytes). */
BEGIN
{
	@m[1] = max(3);
	@m[1] = max(9);
	@m[2] = max(4);
	exit(0);
}
