#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# libstdc++'s <sys/sdt.h> probes (libstdcxx:::throw and catch, in a library
# the program maps at start): libstdcxx$target:::throw / catch traced with
# -c in a test C++ program, with the functions that hold the sites.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
command -v g++ >/dev/null || { echo "no g++"; exit 77; }

cat >thrower.cc <<'CC'
#include <cstdio>
#include <stdexcept>

int main()
{
	for (int i = 0; i < 3; i++) {
		try {
			throw std::runtime_error("boom");
		} catch (const std::exception &e) {
			std::printf("caught %d\n", i);
		}
	}
	return 0;
}
CC
g++ -O1 -o thrower thrower.cc || exit 1

"$DTRACE" -q -n 'libstdcxx$target:::throw, libstdcxx$target:::catch
	{ printf("%s %s %s %d\n", probemod, probefunc, probename, arg0 != 0); }' \
	-c ./thrower >out 2>err
expected=$(for i in 0 1 2; do
	echo "libstdc++.so.6.0.30 __cxa_throw throw 1"
	echo "libstdc++.so.6.0.30 __cxa_begin_catch catch 1"
done)
actual=$(grep -v '^caught' out | sed '/^$/d')
mod=$(basename "$(readlink -f /usr/lib/x86_64-linux-gnu/libstdc++.so.6)")
expected=${expected//libstdc++.so.6.0.30/$mod}
if [ "$actual" != "$expected" ]; then
	echo "printed:"; cat out err
	echo "expected:"; echo "$expected"
	status=1
fi
[ "$(grep -c '^caught' out)" = 3 ] || { echo "program output:"; cat out; status=1; }
exit $status
