#!/bin/bash
# SPDX-License-Identifier: MIT
# The installed example plugins besides the tracepoint one (its own test,
# example_tracepoint.sh) are built by their own Makefiles against a
# scratch installation only, warnings as errors, and trace:
#  - examples/cxx, a C++17 plugin, -pedantic clean (its table is filled
#    from dtrace_provider_ops_start(), not designated initializers);
#  - examples/uprobe, ucall:::entry on a function's entry named by its
#    options: pidtarget's add(i, i + 1), with its arguments.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
command -v cc >/dev/null && command -v c++ >/dev/null || exit 77

stage_install
EX=$PWD/stage/usr/local/share/dtrace/examples
for d in cxx uprobe; do
	[ -f "$EX/$d/Makefile" ] || { echo "example $d not installed"; exit 1; }
	cp -r "$EX/$d" "$d" || exit 1
done
make -s -C cxx DESTDIR="$PWD/stage" PREFIX=/usr/local \
	CXXFLAGS='-std=c++17 -pedantic -O2 -Wall -Wextra -Werror' \
	>build.log 2>&1 || { cat build.log; exit 1; }
make -s -C uprobe DESTDIR="$PWD/stage" PREFIX=/usr/local \
	CFLAGS='-std=gnu11 -pedantic -O2 -Wall -Wextra -Werror' \
	>>build.log 2>&1 || { cat build.log; exit 1; }

out=$("$DTRACE" -q -x plugindir="$PWD/cxx" \
	-n 'hellocxx:::greet { printf("%d %d\n", arg0, arg1); exit(0); }' 2>err)
[ "$out" = "14 7" ] && [ ! -s err ] || { echo "cxx: '$out'"; cat err; status=1; }

out=$("$DTRACE" -q -x plugindir="$PWD/uprobe" -x ucall.path="$T" \
	-x ucall.func=add -c "$T 3" \
	-n 'ucall:::entry /pid == $target/ { printf("%d %d\n", arg0, arg1); }' 2>err)
want=$'0 1\n1 2\n2 3'
[ "$(grep -v '^done' <<<"$out" | sed '/^$/d')" = "$want" ] ||
	{ echo "uprobe: '$out'"; cat err; status=1; }

"$DTRACE" -q -x plugindir="$PWD/uprobe" -x ucall.path="$T" \
	-x ucall.func=nosuch -n 'ucall:::entry { }' >out 2>err
rc=$?
[ $rc != 0 ] && grep -qF "ucall: $T has no function nosuch" err ||
	{ echo "no such function: exit $rc"; cat out err; status=1; }
exit $status
