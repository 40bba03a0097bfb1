/* SPDX-License-Identifier: MIT */
/* A profile rate above what the provider makes (1ns) is no probe: the
 * description matches none, as in DTrace. */
profile-1ns
{
	exit(0);
}
