/* SPDX-License-Identifier: MIT */
/* speculate() comes before the clause's data-recording actions. */
BEGIN
{
	printf("x\n");
	speculate(1);
}
