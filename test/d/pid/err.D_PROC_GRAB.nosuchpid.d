/* SPDX-License-Identifier: MIT */
/* A pid above any the kernel gives (pid_max is at most 2^22). */
pid2147483647:a.out:main:entry
{
	exit(0);
}
