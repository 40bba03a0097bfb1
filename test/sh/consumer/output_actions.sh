#!/bin/bash
# SPDX-License-Identifier: MIT
# The actions the consumer carries out: freopen() sends the output to a
# file (appended to) and freopen("") back; ftruncate() empties the -o
# file; tracemem(addr, size, n) prints n of the size bytes; printm(size,
# addr) prints size bytes as tracemem() does.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog netaddr
fails() { echo "FAIL $1: got:"; cat "$2"; echo "stderr:"; cat err; status=1; }

"$DTRACE" -wq -n 'BEGIN { printf("a\n"); freopen("fo%d.txt", 1);
	printf("b\n"); freopen(""); printf("c\n"); exit(0); }' >out 2>err
[ "$(cat out)" = "a
c" ] || fails "freopen stdout" out
[ "$(cat fo1.txt)" = "b" ] || fails "freopen file" fo1.txt

"$DTRACE" -q -o ft.txt -n 'BEGIN { printf("x\n"); ftruncate();
	printf("y\n"); exit(0); }' >out 2>err
[ "$(cat ft.txt)" = "y" ] || fails "ftruncate" ft.txt

# freopen() is destructive
"$DTRACE" -q -n 'BEGIN { freopen("x"); }' >out 2>err &&
	fails "freopen without -w" out

# 192.168.0.1 as struct in_addr holds it
"$DTRACE" -q -c "$T" -n 'int seen; pid$target:a.out:addr4:entry /!seen/ {
	tracemem(arg0, 4, 2); printm(4, arg0); seen = 1; }' 2>err |
	grep -v '^done$' >out
expected="
             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: c0 a8                                            ..

             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: c0 a8 00 01                                      ...."
[ "$(sed '/^$/d' out)" = "$(printf '%s\n' "$expected" | sed '/^$/d')" ] ||
	fails "tracemem/printm" out
exit $status
