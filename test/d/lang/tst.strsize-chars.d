/* @dtrace-opts: -q -x strsize=7 */
/* SPDX-License-Identifier: MIT */
/* A string holds strsize characters, its NUL aside, as in DTrace: each
 * result below is cut at 7 characters, none at 6. */
BEGIN
{
	printf("[%s] [%s] [%s] [%s]\n", lltostr(1234567),
	    strjoin("abc", "defgh"), substr(strjoin("01234", "56789"), 0),
	    "abcdefg");
	printf("[%s] [%s] [%s]\n", toupper(strjoin("abcd", "efgh")),
	    lltostr(-1, 16), strjoin(lltostr(12), "34567"));
	s = strjoin("abcd", "efghij");
	k[s] = 7;
	printf("[%s] %d %d %d %d\n", s, strlen(s), k["abcdefg"],
	    sizeof(string), s == "abcdefg");
	exit(0);
}
