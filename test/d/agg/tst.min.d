/* @dtrace-opts: -q */
BEGIN
{
	@ = min(3);
	@ = min(-7);
	@ = min(12);
	exit(0);
}
