/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* && and || between comparisons of strings made at run time, and of
 * strings that are NULL at run time: the result register of && and || is
 * taken before their operands need every register. */
BEGIN
{
	printf("%d\n", strjoin("a", "b") == strjoin("a", "b") &&
	    "a" != strjoin("b", ""));
	printf("%d\n", strjoin("a", "b") != strjoin("a", "b") ||
	    "a" == strjoin("b", ""));
	printf("%d\n", strchr("abc", 'z') == NULL &&
	    strstr(strjoin("a", "bc"), "c") != NULL);
	printf("%d\n", strchr("abc", 'z') != NULL ||
	    strstr(strjoin("a", "bc"), "z") != NULL);
	printf("%d\n", strchr("abc", 'z') == NULL ?
	    strjoin("a", "b") == "ab" : 7);
	exit(0);
}
