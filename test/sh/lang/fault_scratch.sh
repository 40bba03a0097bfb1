#!/bin/bash
# SPDX-License-Identifier: MIT
# alloca() memory is reached only inside what the clause allocated, as in
# DTrace: a load or store past the top of the allocations (rounded up to
# 8 bytes) or below their bottom, a bcopy() that overruns its destination
# (from a string too, which DTrace takes as the source) or its source,
# and a pointer kept from an earlier clause (DTrace resets its scratch
# memory for each clause) raise the run-time error: DTrace's line on
# stderr, the ERROR clause runs and its exit() ends the session.
# Accesses inside the allocations keep working, and an alloca() of a
# later clause takes the same memory again.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/sh/lib/fault_lib.sh"
need_dtrace

line() {
	fault_line "$1" dtrace:::BEGIN "invalid address (ADDR)"
}

fault "load past the top" '
BEGIN { s = (char *)alloca(15); base = (uint64_t)s; trace(s[16]); }' \
	"ERROR fault 1 at base+16" "$(line 1)"

fault "load below the bottom" '
BEGIN { s = (char *)alloca(15); base = (uint64_t)s; trace(s[-1]); }' \
	"ERROR fault 1 at base-1" "$(line 1)"

fault "store past the top" '
BEGIN { s = (char *)alloca(15); base = (uint64_t)s; s[16] = 1; }' \
	"ERROR fault 1 at base+16" "$(line 1)"

fault "store of 8 bytes crossing the top" '
BEGIN { p = (uint64_t *)alloca(16); base = (uint64_t)p; *(p + 1) = 2;
	*(uint64_t *)((char *)p + 12) = 3; }' \
	"ERROR fault 1 at base+12" "$(line 1)"

fault "store below the bottom" '
BEGIN { s = (char *)alloca(15); base = (uint64_t)s; s[-1] = 1; }' \
	"ERROR fault 1 at base-1" "$(line 1)"

fault "a global pointer kept from the clause before" '
BEGIN { s = (char *)alloca(1); base = (uint64_t)s; *s = 97; }
BEGIN { printf("next clause\n"); }
BEGIN { trace(*s); }' \
	"next clause
ERROR fault 1 at base+0" "$(line 3)"

fault "a clause-local pointer kept from the clause before" '
BEGIN { this->s = (char *)alloca(8); base = (uint64_t)this->s; }
BEGIN { this->s[2] = 1; }' \
	"ERROR fault 1 at base+2" "$(line 2)"

fault "bcopy() past the top of its destination" '
BEGIN { src = (char *)alloca(32); s = (char *)alloca(9);
	base = (uint64_t)s; bcopy(src, s, 17); }' \
	"ERROR fault 1 at base+0" "$(line 1)"

fault "bcopy() below the bottom of its destination" '
BEGIN { s = (char *)alloca(15); src = (char *)alloca(8);
	base = (uint64_t)s; bcopy(src, s - 1, 8); }' \
	"ERROR fault 1 at base-1" "$(line 1)"

fault "bcopy() of a string past the top of its destination" '
BEGIN { a = "0123456789abcdefgh"; s = (char *)alloca(9);
	base = (uint64_t)s; bcopy(a, s, 17); }' \
	"ERROR fault 1 at base+0" "$(line 1)"

fault "bcopy() past the top of its source" '
BEGIN { s = (char *)alloca(16); src = (char *)alloca(8);
	base = (uint64_t)src; bcopy(src, s, 16); }' \
	"ERROR fault 1 at base+0" "$(line 1)"

# What lies inside the allocations is read and written as before; a later
# clause's alloca() takes the same memory again, fresh.  The pointer that
# xlate <T *> yields stays valid until the firing ends.
cat >prog.d <<'EOF'
struct pt { int x; int y; };
translator struct pt < int X > { x = X; y = X * 2; };

BEGIN
{
	this->p = xlate <struct pt *> (21);
	s = (char *)alloca(15);
	s[15] = 7;		/* the rounding to 8 bytes is the clause's */
	t = (char *)alloca(8);
	bcopy(s + 8, t, 8);
	printf("%d %d\n", s[15], t[7]);
	bcopy("xyz", &s[8], 4);		/* a string, as DTrace takes one */
	printf("%s\n", stringof(&s[8]));
}

BEGIN
{
	u = (char *)alloca(1);
	printf("%d %d %d\n", u == s, *s, this->p->y);
	exit(0);
}

ERROR
{
	exit(1);
}
EOF
timeout 10 "$DTRACE" -q -s prog.d >out 2>err
rc=$?
expected='7 7
xyz
1 0 42'
[ $rc = 0 ] && [ "$(grep -v '^$' out)" = "$expected" ] && [ ! -s err ] ||
	fail_run "accesses inside the allocations" "$expected"
exit $status
