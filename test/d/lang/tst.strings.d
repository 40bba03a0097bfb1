/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* The string subroutines. */
BEGIN
{
	printf("%d %d\n", strlen("hello"), strlen(""));
	printf("%s\n", strjoin("foo", "bar"));
	printf("[%s] [%s] [%s]\n", substr("hello world", 6),
	    substr("hello", 1, 3), substr("hello", -3));
	printf("%d %d %d %d\n", index("hello", "l"), rindex("hello", "l"),
	    index("hello", "z"), index("hello", "l", 3));
	printf("%s %s %s\n", strstr("hello world", "o w"),
	    strchr("hello", 'l'), strrchr("hello", 'l'));
	printf("%s %s %s %s\n", basename("/usr/lib/libc.so"),
	    dirname("/usr/lib/libc.so"), basename("/"), dirname("foo"));
	printf("%s %s\n", toupper("Hello, World"), tolower("HeLLo"));
	printf("%s %s %s\n", lltostr(-123), lltostr(0),
	    lltostr(9223372036854775807LL));
	exit(0);
}
