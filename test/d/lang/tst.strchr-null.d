/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* strchr, strrchr and strstr return NULL when nothing matches (DTrace);
 * a match returns the rest of the string. */
BEGIN
{
	printf("%d %d %d\n", strchr("abc", 'z') == NULL,
	    strrchr("abc", 'z') == NULL, strstr("abc", "zz") == NULL);
	printf("%d %d %d\n", strchr("abc", 'b') != NULL,
	    strrchr("abcb", 'b') != 0, strstr("abc", "bc") != NULL);
	printf("%s %s %s\n", strchr("abcb", 'b'), strrchr("abcb", 'b'),
	    strstr("abcbc", "bc"));
}

BEGIN
{
	printf("this clause faults: ");
	printf("%s\n", strchr("abc", 'z'));
}

BEGIN
{
	exit(0);
}
