/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* strtok() as DTrace's: NULL goes on with the previous string, from the
 * delimiter that ended the last token (so a new set of delimiters sees
 * it), in the same clause or the next clause of the same firing; no token
 * left gives NULL, and so does every NULL call after it.  A firing starts
 * with no string: strtok(NULL, ...) first faults (the shell test
 * sh/lang/fault_strtok_null.sh). */
BEGIN
{
	this->str = ",,,Carrots,,Barley,Oatmeal,,,Beans,";
	printf("[%s]\n", strtok(this->str, ","));
	printf("[%s]\n", strtok(NULL, ","));
	printf("[%s]\n", strtok(NULL, ","));
}

BEGIN
{
	printf("[%s]\n", strtok(NULL, ","));
	printf("%d %d\n", strtok(NULL, ",") == NULL,
	    strtok(NULL, ",") == NULL);
	printf("[%s]", strtok("a b:c", " "));
	printf("[%s]", strtok(NULL, ":"));
	printf("[%s]", strtok(NULL, ":"));
	printf(" %d\n", strtok(NULL, ":") == NULL);
	printf("%d [%s] [%s]\n", strtok(",,,", ",") == NULL,
	    strtok("abc", ""), strtok("x=1;y=2", "=;"));
	this->tok = strtok("one two", " ");
}

BEGIN
{
	exit(0);
}
