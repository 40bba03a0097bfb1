#!/bin/bash
# SPDX-License-Identifier: MIT
# A `dtrace -h` header is self-contained: programs compile against it with
# no -I to this tree's include/ and without any installed dtrace header (the
# compiler's dependency list names none), C and C++ at -O2 and with -flto,
# two generated headers in one unit included, and the probes are traced
# through `dtrace -G` registration with a test-owned dtprobed; the stapsdt
# notes that other tools read are there too.  With DTRACE_USDT_DISABLE the
# header compiles with the probes gone.
. "$TESTDIR/usdt/daemon_lib.sh"
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
[ -x "$B/dtprobed" ] || { echo "no $B/dtprobed"; exit 77; }
command -v cc >/dev/null && command -v c++ >/dev/null ||
	{ echo "no C or C++ compiler"; exit 77; }

cp "$TESTDIR/usdt/prov.d" prov.d
cat >other.d <<'D'
provider otherapp {
	probe ping(long, char *);
};
D
cat prov.d other.d >both.d
"$DTRACE" -h -s prov.d -o prov.h || fail "dtrace -h prov.d"
"$DTRACE" -h -s other.d -o other.h || fail "dtrace -h other.d"
grep -q "^#[[:space:]]*include" prov.h && fail "prov.h includes a file"

cat >two.c <<'C'
#include <stdlib.h>
#include "prov.h"
#include "other.h"

#ifdef __cplusplus
extern "C"
#endif
__attribute__((noinline)) int fire(int i)
{
	MYAPP_TICK(i);
	MYAPP_QUERY_START(i, "hello");
	OTHERAPP_PING(-1000L * i, "pong");
	return OTHERAPP_PING_ENABLED() + MYAPP_TICK_ENABLED();
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, sum = 0;

	for (int i = 0; i < n; i++)
		sum += fire(i);
	return sum == 2 * n ? 0 : 3;
}
C
cp two.c two.cc

# build NAME COMPILER SRC FLAGS: compile listing the headers read, then -G
# and link.
build() {
	local name=$1 c=$2 src=$3 cf=$4
	$c $cf -MD -MF "$name.dep" -c -o "$name.o" "$src" ||
		{ fail "compile $name"; return 1; }
	if grep -q 'dtrace/' "$name.dep"; then
		fail "$name read a dtrace header: $(grep -o '[^ ]*dtrace/[^ ]*' "$name.dep")"
	fi
	"$DTRACE" -G -s both.d -o "${name}_prov.o" "$name.o" &&
	$c $cf -o "$name" "$name.o" "${name}_prov.o" ||
		{ fail "-G or link $name"; return 1; }
	readelf -n "$name" | grep -q 'Provider: otherapp' ||
		fail "$name: no stapsdt note for otherapp"
}

start_daemon
for v in "c cc two.c -O2" "c_lto cc two.c -O2 -flto" \
	 "cxx c++ two.cc -O2" "cxx_lto c++ two.cc -O2 -flto"; do
	set -- $v
	name=$1 c=$2 src=$3; shift 3
	build "$name" "$c" "$src" "$*" || continue
	# Exit status 3 would mean the semaphores did not read "enabled".
	"$DTRACE" -q -n '
myapp$target:::tick { printf("tick %d\n", args[0]); }
myapp$target:::query-start { printf("qs %s %d\n", copyinstr(args[0]), args[1]); }
otherapp$target:::ping { printf("ping %d %s\n", args[0], copyinstr(args[1])); }' \
		-c "./$name 2" >"$name.out" 2>"$name.err" ||
		{ fail "$name: dtrace failed"; cat "$name.err"; continue; }
	exp=$(printf 'tick 0\nqs hello 0\nping 0 pong\ntick 1\nqs hello 1\nping -1000 pong\n')
	got=$(grep -v '^$' "$name.out")
	[ "$got" = "$exp" ] ||
		{ fail "$name output"; diff <(echo "$exp") <(echo "$got"); cat "$name.err"; }
done

# Without probes: the macros compile away, no note, nothing to register.
cc -O2 -DDTRACE_USDT_DISABLE -o off two.c || fail "compile with DTRACE_USDT_DISABLE"
readelf -n off 2>/dev/null | grep -q stapsdt && fail "notes with DTRACE_USDT_DISABLE"
./off 1; [ $? = 3 ] || fail "ENABLED() is not 0 with DTRACE_USDT_DISABLE"

exit $status
