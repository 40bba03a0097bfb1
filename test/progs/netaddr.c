/* SPDX-License-Identifier: MIT */
/*
 * netaddr: passes network addresses and words to a function, for the
 * tests of inet_ntoa(), inet_ntop() and the byte order subroutines.
 *
 *   netaddr    calls addr4(&a) for 192.168.0.1, 0.10.255.100 and
 *              255.255.255.255 (network byte order, as struct in_addr
 *              holds them), then port(htons(8080)), then addr6(&a6) for
 *              each IPv6 address of v6[] below, then link(6, mac) and
 *              link(20, ib) with bytes 0x00, 0x11, ... 0xff, 0x00...;
 *              prints "done"
 */
#include <arpa/inet.h>
#include <stdio.h>

#define OPAQUE() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) void addr4(const struct in_addr *a)
{
	(void)a;
	OPAQUE();
}

__attribute__((noinline)) void addr6(const struct in6_addr *a)
{
	(void)a;
	OPAQUE();
}

__attribute__((noinline)) void link(int len, const unsigned char *addr)
{
	(void)len;
	(void)addr;
	OPAQUE();
}

__attribute__((noinline)) void port(unsigned short p)
{
	(void)p;
	OPAQUE();
}

int main(void)
{
	static const char *const v4[] = {
		"192.168.0.1", "0.10.255.100", "255.255.255.255",
	};
	struct in_addr a;

	for (unsigned i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
		if (inet_pton(AF_INET, v4[i], &a) != 1)
			return 1;
		addr4(&a);
	}
	port(htons(8080));

	static const char *const v6[] = {
		"fe80::214:4fff:fe0b:76c8", "1080::808:c:417a", "::1", "::",
		"::7f00:1", "::ffff:127.0.0.1", "::fffe:7f00:1",
		"fe12:3456:789a:bcde:214::", "fe12:3456:789a:bcde:214:4fff::",
		"fe12:3456:789a:bcde:214:4fff:fe0b:0", "1:0:2:0:0:3:0:0",
		"1:0:0:2:0:0:3:4", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
	};
	struct in6_addr a6;

	for (unsigned i = 0; i < sizeof(v6) / sizeof(v6[0]); i++) {
		if (inet_pton(AF_INET6, v6[i], &a6) != 1)
			return 1;
		addr6(&a6);
	}
	unsigned char hw[20];
	for (unsigned i = 0; i < sizeof(hw); i++)
		hw[i] = (unsigned char)(i * 0x11);
	link(6, hw);
	link(20, hw);
	printf("done\n");
	return 0;
}
