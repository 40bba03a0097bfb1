/* SPDX-License-Identifier: MIT */
/*
 * netaddr: passes network addresses and words to a function, for the
 * tests of inet_ntoa(), inet_ntop() and the byte order subroutines.
 *
 *   netaddr    calls addr4(&a) for 192.168.0.1, 0.10.255.100 and
 *              255.255.255.255 (network byte order, as struct in_addr
 *              holds them), then port(htons(8080)); prints "done"
 */
#include <arpa/inet.h>
#include <stdio.h>

#define OPAQUE() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) void addr4(const struct in_addr *a)
{
	(void)a;
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
	printf("done\n");
	return 0;
}
