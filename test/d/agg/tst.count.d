/* @dtrace-opts: -q */
/* An aggregation without keys, printed at exit after the final newline. */
BEGIN
{
	@ = count();
	@ = count();
	exit(0);
}
