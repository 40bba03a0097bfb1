/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* A second exit() in the clause of the first is dropped; the rest of the
 * clause still runs, and END still runs after it. */
BEGIN
{
	exit(2);
	printf("same clause\n");
	exit(4);
}

END
{
	printf("end\n");
}
