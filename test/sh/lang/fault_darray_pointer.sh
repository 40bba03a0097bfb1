#!/bin/bash
# SPDX-License-Identifier: MIT
# A pointer into a global D array or struct variable (&a[i], &v.m, or the
# array itself as a pointer) holds an address in BPF memory, which a
# dereference reads, or writes, as user memory: DTrace's run-time error,
# an invalid address at that address, so the ERROR clause runs and its
# exit() ends the session.  The addresses themselves are as in C.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/sh/lib/fault_lib.sh"
need_dtrace

line() {
	fault_line "$1" dtrace:::BEGIN "invalid address (ADDR)"
}

fault "a load through &a[i]" '
int a[3];
BEGIN { a[1] = 40; p = &a[1]; base = (uint64_t)p; trace(*p); }' \
	"ERROR fault 1 at base+0" "$(line 1)"

fault "a load through the array as a pointer" '
int a[3];
int *p;
BEGIN { a[2] = 40; p = a; base = (uint64_t)&a[2]; trace(p[2]); }' \
	"ERROR fault 1 at base+0" "$(line 1)"

fault "a store through &v.m" '
struct pt { int x; int y; } v;
BEGIN { q = &v.y; base = (uint64_t)&v.x; *q = 1; }' \
	"ERROR fault 1 at base+4" "$(line 1)"

fault "addresses of elements and members" '
int a[3];
struct pt { int x; int y; } v, pts[2];
BEGIN { printf("%d %d %d\n", (uint64_t)&a[2] - (uint64_t)&a[0],
	(uint64_t)&pts[1].y - (uint64_t)&pts[0], (uint64_t)&v.y - (uint64_t)&v.x); }
BEGIN { this->p = &pts[1]; base = (uint64_t)this->p; trace(this->p->y); }' \
	"8 12 4
ERROR fault 1 at base+4" "$(line 2)"
exit $status
