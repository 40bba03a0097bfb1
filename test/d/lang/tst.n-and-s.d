/* @dtrace-opts: -q -n BEGIN{printf("option\n");} */
/* -n and -s combine: both programs run, in the order of the command
 * line. */
BEGIN
{
	printf("script\n");
	exit(0);
}
