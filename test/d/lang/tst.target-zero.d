/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * Without -c or -p, $target is 0, as in DTrace: a predicate on it is
 * false rather than an error.
 */
BEGIN
/pid != $target/
{
	printf("%d\n", $target);
	exit(0);
}
