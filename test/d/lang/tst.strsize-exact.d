/* @dtrace-opts: -q -x strsize=2 */
/* SPDX-License-Identifier: MIT */
/* -x strsize=2 holds two characters (and the NUL), as in DTrace, not the
 * 8 of the buffers inside: every string is cut there, whether it is a literal, a built-in,
 * a subroutine's result (inet_ntoa()'s too), a variable, a key or a record. */
BEGIN
{
	printf("[%s] [%s] [%s] [%s]\n", "a", probename, strjoin("a", "b"),
	    lltostr(12345));
	printf("%d %d %d %d\n", sizeof(string), strlen(execname),
	    strlen(probeprov), strlen(toupper(probefunc)));
	printf("[%s] %d\n", inet_ntoa(alloca(4)), strlen(inet_ntoa(alloca(4))));
	s = probename;
	k[probename] = 1;
	m["a", "b", "c", "d"] = 4;	/* four strings fit a key, as before */
	printf("[%s] %d %d %d\n", s, k["BE"], s == "BE", m["a", "b", "c", "d"]);
	trace(probeprov);
	printf("\n");
	@a[probename] = count();
	exit(0);
}
