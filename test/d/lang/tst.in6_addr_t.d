/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* struct in6_addr and in6_addr_t are D's own, laid out as Linux's, so that
 * inet_ntoa6() takes a script's address without a header. */
BEGIN
{
	a = (in6_addr_t *)alloca(sizeof(in6_addr_t));
	a->in6_u.u6_addr16[0] = 0x80fe;
	a->in6_u.u6_addr8[15] = 1;
	b = (struct in6_addr *)a;
	printf("%d %d %s\n", sizeof(in6_addr_t), sizeof(b->in6_u.u6_addr32),
	       inet_ntoa6(b));
	exit(0);
}
