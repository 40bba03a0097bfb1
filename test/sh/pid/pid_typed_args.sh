#!/bin/bash
# SPDX-License-Identifier: MIT
# Argument types from DWARF for pid probes on a -O2 -g program (typed):
# args[0]->x reads the member of struct point through the pointer, args[2]
# is the enum, args[1] of a return probe has the return type; typedefs
# and struct a.out`point in sizeof and casts; dtrace -l -v shows the
# types; the same through a separate debug file found by .gnu_debuglink,
# and by build-id in a scratch debug tree; an unknown module type is
# refused.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog typed
need_cmd objcopy
. "$TESTDIR/sh/lib/check_lib.sh"

S='pid$target:a.out:area:entry {
	printf("%d %d %d %d %d\n", args[0]->x, args[0]->y, args[1], args[2],
	       args[2] == LIGHT); }
pid$target:a.out:mk:return { printf("tag %d\n", args[1]->tag); }'
EXPECT='tag 101\|1 2 2 2 1\|tag 102\|2 3 2 2 1\|'

# 1. members through args[], the enum, the return type
out=$("$DTRACE" -q -c "$T 2" -n "$S" 2>err | grep -v '^done ')
check "args" "$out" "$EXPECT"

# 2. the program's typedef and struct a.out`point in sizeof and a cast
out=$("$DTRACE" -q -c "$T 1" -n 'pid$target:a.out:area:entry {
	printf("%d %d %d\n", sizeof(point_t), sizeof(struct a.out`point),
	       ((struct typed`point *)arg0)->y); }' 2>err | grep -v '^done ')
check "types" "$out" '16 16 2\|'

# 3. dtrace -l -v
out=$("$DTRACE" -l -v -c "$T 1" -n 'pid$target:a.out:area:entry' \
	-n 'pid$target:a.out:mk:return' 2>err | grep 'args\[')
check "-l -v" "$out" \
	'		args\[0\]: struct point \*\|		args\[1\]: int\|		args\[2\]: enum shade\|		args\[0\]: unsigned long\|		args\[1\]: struct point \*\|'

# 4. the debugging information in a separate file, by .gnu_debuglink
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cp "$T" "$D/typed"
objcopy --only-keep-debug "$D/typed" "$D/typed.debug" &&
	objcopy --strip-debug --add-gnu-debuglink="$D/typed.debug" "$D/typed" ||
	{ echo "objcopy failed"; exit 1; }
if readelf -S "$D/typed" | grep -q debug_info; then
	echo "FAIL: $D/typed still has .debug_info"; status=1
fi
out=$(cd "$D" && "$DTRACE" -q -c "./typed 2" -n "$S" 2>err | grep -v '^done ')
check "debuglink" "$out" "$EXPECT"

# 5. the debugging information split off by build-id into a scratch debug
#    tree (DTRACE_DEBUG_DIR; /usr/lib/debug by default), the program
#    stripped of it and of its symbol table, with no .gnu_debuglink: types
#    and the symbols of its static functions come from the tree
mkdir -p "$D/b" && cp "$T" "$D/b/typed"
id=$(readelf -n "$D/b/typed" | sed -n 's/^ *Build ID: *//p')
[ ${#id} -gt 2 ] || { echo "no build-id"; exit 1; }
mkdir -p "$D/debug/.build-id/${id:0:2}"
objcopy --only-keep-debug "$D/b/typed" "$D/debug/.build-id/${id:0:2}/${id:2}.debug" &&
	objcopy --strip-debug --strip-unneeded "$D/b/typed" ||
	{ echo "objcopy failed"; exit 1; }
out=$(cd "$D/b" && DTRACE_DEBUG_DIR="$D/debug" "$DTRACE" -q -c "./typed 2" \
	-n "$S" 2>err | grep -v '^done ')
check "build-id" "$out" "$EXPECT"
out=$(cd "$D/b" && "$DTRACE" -q -c "./typed 2" -n "$S" 2>&1 | grep -v '^done ')
if [ "$out" = "$(printf '%s' "$EXPECT" | tr '|' '\n')" ]; then
	echo "FAIL: the types were found without the debug tree"; status=1
fi

# 6. a type the program does not have
if "$DTRACE" -x errtags -c "$T 1" -n 'BEGIN { trace(sizeof(struct a.out`nope)); }' \
	>out 2>err || ! grep -q 'D_UNKNOWN.*struct a.out`nope' err; then
	echo "FAIL unknown type:"; cat out err; status=1
fi
exit $status
