#!/bin/bash
# SPDX-License-Identifier: MIT
# inet_ntoa(), inet_ntoa6(), inet_ntop() (AF_INET, AF_INET6) and
# link_ntop() of addresses in a traced program's memory (an ipaddr_t *
# as DTrace declares inet_ntoa()'s argument); ntohs() of the
# port it passes in network byte order; another family or link type is
# refused, or faults at run time; a strsize shorter than a text cuts it,
# whatever strsize.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog netaddr

out=$("$DTRACE" -q -c "$T" -n 'pid$target:a.out:addr4:entry {
	printf("%s %s\n", inet_ntoa((ipaddr_t *)arg0), inet_ntop(2, arg0)); }
	pid$target:a.out:port:entry { printf("%d %x\n", ntohs(arg0),
	htons(arg0)); }' 2>err | grep -v '^done')
expected="192.168.0.1 192.168.0.1
0.10.255.100 0.10.255.100
255.255.255.255 255.255.255.255
8080 1f90"
if [ "$out" != "$expected" ]; then
	echo "FAIL: got:"; printf '%s\n' "$out"; echo "expected:"
	printf '%s\n' "$expected"; cat err; status=1
fi

# IPv6: the longest run of two or more zero groups (the first of equal
# ones) as "::", an embedded IPv4 address alone for inet_ntoa6() and with
# its prefix for inet_ntop(), the family also chosen at run time
out=$("$DTRACE" -q -c "$T" -n 'pid$target:a.out:addr6:entry {
	printf("%s|%s|%s\n", inet_ntoa6(arg0), inet_ntop(AF_INET6, arg0),
	       inet_ntop(self->family + AF_INET6, arg0)); }' 2>err |
	grep -v '^done')
expected="fe80::214:4fff:fe0b:76c8|fe80::214:4fff:fe0b:76c8|fe80::214:4fff:fe0b:76c8
1080::808:c:417a|1080::808:c:417a|1080::808:c:417a
::1|::1|::1
::|::|::
127.0.0.1|::127.0.0.1|::127.0.0.1
127.0.0.1|::ffff:127.0.0.1|::ffff:127.0.0.1
::fffe:7f00:1|::fffe:7f00:1|::fffe:7f00:1
fe12:3456:789a:bcde:214::|fe12:3456:789a:bcde:214::|fe12:3456:789a:bcde:214::
fe12:3456:789a:bcde:214:4fff::|fe12:3456:789a:bcde:214:4fff::|fe12:3456:789a:bcde:214:4fff::
fe12:3456:789a:bcde:214:4fff:fe0b:0|fe12:3456:789a:bcde:214:4fff:fe0b:0|fe12:3456:789a:bcde:214:4fff:fe0b:0
1:0:2::3:0:0|1:0:2::3:0:0|1:0:2::3:0:0
1::2:0:0:3:4|1::2:0:0:3:4|1::2:0:0:3:4
ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff|ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff|ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"
if [ "$out" != "$expected" ]; then
	echo "FAIL ipv6: got:"; printf '%s\n' "$out"; echo "expected:"
	printf '%s\n' "$expected"; cat err; status=1
fi

# link_ntop() of an Ethernet and an IPoIB address; a strsize shorter than
# the text cuts it
out=$("$DTRACE" -q -c "$T" -n 'pid$target:a.out:link:entry {
	printf("%s\n", link_ntop(arg0 == 6 ? DL_ETHER : DL_IPOIB, arg1)); }' \
	2>err | grep -v '^done')
expected="00:11:22:33:44:55
00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:10:21:32:43"
if [ "$out" != "$expected" ]; then
	echo "FAIL link: got:"; printf '%s\n' "$out"; cat err; status=1
fi
out=$("$DTRACE" -q -x strsize=40 -c "$T" -n 'pid$target:a.out:link:entry
	/arg0 == 20/ { printf("%s\n", link_ntop(DL_IPOIB, arg1)); }' \
	2>err | grep -v '^done')
if [ "$out" != "00:11:22:33:44:55:66:77:88:99:aa:bb:cc:d" ]; then
	echo "FAIL link strsize: got: $out"; cat err; status=1
fi

# another family or link type: refused when constant, an illegal
# operation at run time
if "$DTRACE" -e -n 'BEGIN { trace(inet_ntop(3, 0)); }' >out 2>err ||
   ! grep -q "inet_ntop( ) supports AF_INET (2) and AF_INET6 (10) only" err; then
	echo "FAIL: inet_ntop(3) not refused:"; cat err; status=1
fi
"$DTRACE" -q -c "$T" -n 'pid$target:a.out:link:entry /arg0 == 6/ {
	trace(link_ntop(7, arg1)); }' >out 2>err
grep -q "illegal operation" err || { echo "FAIL link type 7:"; cat err; status=1; }

# any strsize: the text is built whole and cut to strsize characters
# (the least strsize, 2, keeps two)
out=$("$DTRACE" -q -x strsize=8 -c "$T" -n 'pid$target:a.out:addr6:entry
	/self->n++ < 2/ { printf("%s\n", inet_ntoa6(arg0)); }
	pid$target:a.out:link:entry { printf("%s\n", link_ntop(arg0 == 6 ?
	DL_ETHER : DL_IPOIB, arg1)); }' 2>err | grep -v -e '^done' -e '^$' |
	tr '\n' ' ')
expected="fe80::21 1080::80 00:11:22 00:11:22 "
if [ "$out" != "$expected" ]; then
	echo "FAIL strsize 8: got: $out"; echo "expected: $expected"
	cat err; status=1
fi
out=$("$DTRACE" -q -x strsize=2 -c "$T" -n 'pid$target:a.out:link:entry {
	printf("[%s]\n", link_ntop(arg0 == 6 ? DL_ETHER : DL_IPOIB, arg1)); }' \
	2>err | grep -v -e '^done' -e '^$' | tr '\n' ' ')
if [ "$out" != "[00] [00] " ]; then
	echo "FAIL strsize 2: got: $out"; cat err; status=1
fi
exit $status
