/* @dtrace-opts: -q -n BEGIN{exit(0);} */
/* -n and -s combine: both programs run; exit() does not stop the other
 * clauses of the same firing. */
BEGIN
{
	printf("script\n");
}
