/* SPDX-License-Identifier: MIT */
/*
 * A clause of speculate() alone records nothing: committing its
 * speculation prints no probe line for it, as in DTrace; the clause
 * that traces into the speculation prints its line and value.
 */
BEGIN
{
	s = speculation();
}

BEGIN
{
	speculate(s);
}

BEGIN
{
	speculate(s);
	trace("kept");
}

BEGIN
{
	speculate(s);
}

BEGIN
{
	commit(s);
	s = 0;
}

BEGIN
{
	exit(0);
}
