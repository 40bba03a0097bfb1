/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* cleanpath() as DTrace's: "//" is one slash, "/./" goes, "dir/.." goes
 * back to the slash before dir (a final "/.." keeps that slash), "/."
 * at the end and names that only start with dots stay, and ".." with no
 * slash before keeps the first byte. */
BEGIN
{
	printf("[%s]\n", cleanpath("/foo/bar/../baz"));
	printf("[%s]\n", cleanpath("/a//b/./c/"));
	printf("[%s]\n", cleanpath("/a/b/.."));
	printf("[%s]\n", cleanpath("a/../b"));
	printf("[%s]\n", cleanpath("a/.."));
	printf("[%s]\n", cleanpath("/a/."));
	printf("[%s]\n", cleanpath("/.x/..y/...z"));
	printf("[%s]\n", cleanpath(""));
	printf("[%s]\n", cleanpath("/usr/lib/../../etc/./passwd"));
	printf("[%s]\n", cleanpath("relative/path"));
	exit(0);
}
