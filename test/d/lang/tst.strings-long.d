/* @dtrace-opts: -q -x strsize=1024 */
/* SPDX-License-Identifier: MIT */
/* The scanning subroutines with long strings: the generated code loads
 * whatever strsize is (the scans are bpf_loop callbacks). */
BEGIN
{
	s = "the quick brown fox jumps over the lazy dog";
	printf("%d %d %d\n", index(s, "o"), rindex(s, "o"), index(s, "o", 13));
	printf("%s\n", strstr(s, "lazy"));
	printf("%s\n", strchr(s, 'j'));
}

BEGIN
{
	printf("%s\n", strrchr(s, 't'));
	printf("%s\n", toupper(s));
}

BEGIN
{
	printf("%s\n", basename("/usr/share/doc/dtrace"));
	exit(0);
}
