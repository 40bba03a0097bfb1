#!/bin/bash
# SPDX-License-Identifier: MIT
# D's signed arithmetic on a kernel without BPF ISA v4 (6.1: no signed
# division, no sign-extending move): quotients and remainders of every
# sign, pointer differences, and conversions to narrower signed types,
# the same as on a newer kernel.
set -u
. "$(dirname "$0")/check_lib.sh"
status=0
"$DTRACE" -q -n 'BEGIN {
	x = -7; y = 2; p = (int *)100; q = (int *)60;
	printf("div %d %d %d %d %d %d %d\n", x / y, x % y, 7 / -2, 7 % -2, -7 / -2,
	    p - q, q - p);
	printf("cast %d %d %d\n", (char)200, (short)65535, (int)4294967295);
	exit(0);
}' >out 2>err
check isa "$(cat out)" 'div -3 -1 -3 1 3 10 -10\|cast -56 -1 -1\|'
exit $status
