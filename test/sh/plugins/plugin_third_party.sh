#!/bin/bash
# SPDX-License-Identifier: MIT
# Provider plugins built out of the tree against the headers that `make
# install` puts in a scratch DESTDIR, and nothing else (each of which
# compiles alone as C and as C++): a C plugin and a
# C++ one load (from -x plugindir and from DTRACE_PLUGIN_PATH) and fire;
# a plugin built for an older minor version loads and its table's missing
# fields are not read; one built for another major version (3.x, before
# the host's tables) is refused with a message naming the file and both
# versions, and dtrace goes on; the C
# plugin's option -x hello.value is listed by -x help and taken, an
# unknown one is refused by name.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
command -v cc >/dev/null && command -v c++ >/dev/null || exit 77

stage_install
INC=$PWD/stage/usr/local/include
[ -f "$INC/dtrace/provider.h" ] || { echo "no installed header"; exit 1; }
MAJOR=$(sed -n 's/^#define DTRACE_PROVIDER_MAJOR[[:space:]]*//p' \
	"$INC/dtrace/provider.h")
MINOR=$(sed -n 's/^#define DTRACE_PROVIDER_MINOR[[:space:]]*//p' \
	"$INC/dtrace/provider.h")

# Every installed header, alone, compiles as C11 and as C++17, pedantic:
# the header-only utilities (<dtrace/hash.h>, <dtrace/array.h>) included.
for h in "$INC"/dtrace/*.h; do
	printf "#include <dtrace/%s>\ntypedef int one_t;\n" "${h##*/}" >one.c
	cp one.c one.cc
	cc -std=gnu11 -pedantic -Wall -Wextra -Werror -I"$INC" -fsyntax-only \
		one.c 2>err || { echo "C: ${h##*/}"; cat err; status=1; }
	c++ -std=c++17 -pedantic -Wall -Wextra -Werror -I"$INC" -fsyntax-only \
		one.cc 2>err || { echo "C++: ${h##*/}"; cat err; status=1; }
done

mkdir -p good cxx old bad v3
cc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$INC" -o good/hello.so \
	"$TESTDIR/plugins/hello.c" || exit 1
c++ -shared -fPIC -O2 -std=c++17 -pedantic -Wall -Wextra -Werror -I"$INC" \
	-o cxx/hellocxx.so "$TESTDIR/../examples/cxx/hello_cxx.cc" || exit 1
cc -shared -fPIC -O2 -I"$INC" -DHELLO_MINOR0 -o old/hello.so \
	"$TESTDIR/plugins/hello.c" || exit 1
cc -shared -fPIC -O2 -I"$INC" -DHELLO_MAJOR=99 -o bad/hello.so \
	"$TESTDIR/plugins/hello.c" || exit 1
cc -shared -fPIC -O2 -I"$INC" -DHELLO_MAJOR=3 -o v3/hello.so \
	"$TESTDIR/plugins/hello.c" || exit 1

expect() {	# what, expected stdout, then the command
	local what=$1 want=$2 out
	shift 2
	out=$("$@" 2>err)
	if [ "$out" != "$want" ] || [ -s err ]; then
		echo "$what: got '$out', want '$want'"; cat err; status=1
	fi
}

expect plugindir "$(printf '42 1')" "$DTRACE" -q -x plugindir="$PWD/good" \
	-n 'hello:::ping { printf("%d %d\n", arg0, arg1 == pid); exit(0); }'
expect DTRACE_PLUGIN_PATH 42 env DTRACE_PLUGIN_PATH="$PWD/good" "$DTRACE" \
	-q -n 'hello:::ping { printf("%d\n", arg0); exit(0); }'
expect C++ "14 7" "$DTRACE" -q -x plugindir="$PWD/cxx" \
	-n 'hellocxx:::greet { printf("%d %d\n", arg0, arg1); exit(0); }'
expect "old minor" 42 "$DTRACE" -q -x plugindir="$PWD/old" \
	-n 'hello:::ping { printf("%d\n", arg0); exit(0); }'
expect option 7 "$DTRACE" -q -x plugindir="$PWD/good" -x hello.value=7 \
	-n 'hello:::ping { printf("%d\n", arg0); exit(0); }'

"$DTRACE" -x plugindir="$PWD/good" -x help >out 2>err
if [ $? != 0 ] || ! grep -q '^  hello\.value  *arg0 of hello:::ping' out; then
	echo "-x help does not list hello.value"; cat out err; status=1
fi

# refused what exit(0: succeeds, 1: fails) message, then the command: the
# message must be on stderr, and the command must exit as said.
refused() {
	local what=$1 fails=$2 msg=$3 rc
	shift 3
	"$@" >out 2>err
	rc=$?
	if [ $((rc != 0)) != "$fails" ] || ! grep -qxF "$msg" err; then
		echo "$what: exit $rc"; cat out err; status=1
	fi
}

refused "unknown option" 1 \
	"dtrace: failed to set option -x hello.volume: plugin $PWD/good/hello.so has no option volume" \
	"$DTRACE" -q -x plugindir="$PWD/good" -x hello.volume=7 \
	-n 'BEGIN { exit(0); }'
refused "option of a 3.0 plugin" 1 \
	"dtrace: failed to set option -x hello.value: plugin $PWD/old/hello.so has no option value" \
	"$DTRACE" -q -x plugindir="$PWD/old" -x hello.value=7 \
	-n 'BEGIN { exit(0); }'
refused "wrong major version" 0 \
	"dtrace: plugin $PWD/bad/hello.so was built for provider interface version 99.$MINOR, this dtrace has version $MAJOR.$MINOR: not loaded" \
	"$DTRACE" -q -x plugindir="$PWD/bad" \
	-n 'BEGIN { printf("on\n"); exit(0); }'
grep -qx on out || { echo "wrong major version: BEGIN did not run"; status=1; }
refused "a plugin of interface 3" 0 \
	"dtrace: plugin $PWD/v3/hello.so was built for provider interface version 3.$MINOR, this dtrace has version $MAJOR.$MINOR: not loaded" \
	"$DTRACE" -q -x plugindir="$PWD/v3" \
	-n 'BEGIN { printf("on\n"); exit(0); }'
exit $status
