#!/bin/bash
# SPDX-License-Identifier: MIT
# inet_ntoa() and inet_ntop(AF_INET, ...) of addresses in a traced
# program's memory; ntohs() of the port it passes in network byte order;
# inet_ntop() of another family is refused.
set -u
[ -x "$DTRACE" ] || exit 77
T=$B/test/progs/netaddr
[ -x "$T" ] || exit 77
fail=0

out=$("$DTRACE" -q -c "$T" -n 'pid$target:a.out:addr4:entry {
	printf("%s %s\n", inet_ntoa(arg0), inet_ntop(2, arg0)); }
	pid$target:a.out:port:entry { printf("%d %x\n", ntohs(arg0),
	htons(arg0)); }' 2>err | grep -v '^done')
expected="192.168.0.1 192.168.0.1
0.10.255.100 0.10.255.100
255.255.255.255 255.255.255.255
8080 1f90"
if [ "$out" != "$expected" ]; then
	echo "FAIL: got:"; printf '%s\n' "$out"; echo "expected:"
	printf '%s\n' "$expected"; cat err; fail=1
fi

if "$DTRACE" -e -n 'BEGIN { trace(inet_ntop(10, 0)); }' >out 2>err ||
   ! grep -q "inet_ntop( ) supports AF_INET (2) only" err; then
	echo "FAIL: inet_ntop(AF_INET6) not refused:"; cat err; fail=1
fi
exit $fail
