/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Nested strjoin() calls and a statement with many string results: the
 * temporaries of finished operands are reused. */
BEGIN
{
	printf("%s\n", strjoin("a", strjoin("b", strjoin("c", strjoin("d",
	    strjoin("e", strjoin("f", strjoin("g", strjoin("h", strjoin("i",
	    "j"))))))))));
	printf("%s\n", strjoin(strjoin(strjoin(strjoin(strjoin(strjoin(
	    strjoin(strjoin(strjoin(strjoin("1", "2"), "3"), "4"), "5"), "6"),
	    "7"), "8"), "9"), "10"), "11"));
	printf("%s %s %s %s %s %s %s %s %s %s\n", toupper("a"), toupper("b"),
	    toupper("c"), toupper("d"), toupper("e"), toupper("f"),
	    toupper("g"), toupper("h"), toupper("i"), toupper("j"));
	exit(0);
}
