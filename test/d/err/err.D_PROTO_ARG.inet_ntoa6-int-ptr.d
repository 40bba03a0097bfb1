/* SPDX-License-Identifier: MIT */
/* inet_ntoa6() takes an in6_addr_t * (or a void *), no other pointer. */
BEGIN
{
	trace(inet_ntoa6((in6_addr_t *)alloca(16)));
	trace(inet_ntoa6((int *)alloca(16)));
	exit(0);
}
