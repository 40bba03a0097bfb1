/* @dtrace-opts: -q */
BEGIN
{
	@ = sum(5);
	@ = sum(-2);
	@ = sum(10);
	exit(0);
}
