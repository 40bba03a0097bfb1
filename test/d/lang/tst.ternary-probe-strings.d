/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* A ?: whose condition compares strings made at run time and whose arms
 * are the probe's string built-ins: the result register of ?: is taken
 * before its condition needs every register, so it is spilled before it
 * is written; the program must load and pick the right arm. */
BEGIN
{
	printf("%s\n", "x" == strjoin("x", "") ? "ok" : probeprov);
	printf("%s\n", "x" != strjoin("x", "") ? "ok" : probeprov);
	printf("[%s]\n", "x" != strjoin("x", "") ? "ok" : probemod);
	printf("[%s]\n", "x" != strjoin("x", "") ? "ok" : probefunc);
	printf("%s\n", "x" != strjoin("x", "") ? "ok" : probename);
	printf("%s\n", "x" != strjoin("x", "") ? "ok" : execname);
	printf("%s\n", strjoin(probeprov, strjoin(":", probename)) ==
	    "dtrace:BEGIN" ? execname : probefunc);
	printf("%d\n", (probeprov == "dtrace" ? 1 : 0) +
	    (execname != probename ? 2 : 0) *
	    (probename == "BEGIN" && probemod == ""));
	exit(0);
}
