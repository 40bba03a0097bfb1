/* SPDX-License-Identifier: MIT */
/* Must fail to compile: the second description of a clause matches
 * nothing (the probes the first matched are freed on the error path). */
BEGIN, nosuchprovider:::nosuchprobe
{
	exit(0);
}
