/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* htons() and the like swap bytes (this machine is little endian);
 * lltostr(v, base) writes as DTrace does: base 10 signed, other bases
 * unsigned, "0x" before base 16 and "0" before base 8. */
BEGIN
{
	printf("%x %x %x\n", htons(0x1234), htonl(0x12345678),
	    htonll(0x0102030405060708));
	printf("%x %x %x\n", ntohs(0x3412), ntohl(0x78563412), ntohll(1));
	printf("%s %s %s %s\n", lltostr(-42, 10), lltostr(255, 16),
	    lltostr(0, 16), lltostr(-1, 16));
	printf("%s %s %s %s %s\n", lltostr(8, 8), lltostr(0, 8),
	    lltostr(5, 2), lltostr(35, 36), lltostr(0, 10));
	printf("%s\n", lltostr(-1, 2));
	printf("%s %s\n", lltostr(-9223372036854775807 - 1), lltostr(7));
	exit(0);
}
