/* @dtrace-opts: -q -x strsize=8 */
/* SPDX-License-Identifier: MIT */
/* strjoin() and substr() results are sized as DTrace sizes them: at most
 * strsize characters, whatever the parts or the length asked for; and
 * substr()'s index and length follow DTrace's rules (a negative index counts
 * from the end, a start before the string eats into the length, a negative
 * length stops that many characters before the end). */
BEGIN
{
	s = strjoin("abcd", "efgh");
	printf("[%s] [%s] [%s] [%s] %d\n", s, substr(s, 2), substr(s, 2, 100),
	    strjoin(s, "xyz"), strlen(strjoin(s, s)));
	printf("[%s] [%s] [%s] [%s] [%s] [%s]\n", substr("hello", -10, 7),
	    substr("hello", 1, -1), substr("hello", -3, -1), substr("hello", 5),
	    substr("hello", -6), substr("hello", -10, 3));
	exit(0);
}
