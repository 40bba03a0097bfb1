/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* exit() in END, while the session drains, sets the status. */
BEGIN
{
	exit(0);
}

END
{
	printf("end\n");
	exit(5);
}
