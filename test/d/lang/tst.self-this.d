/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * self-> variables belong to the thread and live across firings; this->
 * variables live for one firing of a probe, across its clauses.
 */
BEGIN
{
	printf("%d\n", self->n);
	self->n = 5;
	this->v = self->n * 2;
}

BEGIN
{
	printf("%d %d\n", self->n, this->v);
	self->n++;
}

END
{
	printf("%d\n", self->n);
}

BEGIN
{
	exit(0);
}
