#!/bin/bash
# SPDX-License-Identifier: MIT
# -x noresolve: user addresses print unresolved, as DTrace prints them,
# module:0xoffset (the offset from the start of the mapping that holds the
# address) or 0xaddress where no module maps it: ustack() frames,
# ufunc(), usym(), uaddr(), printf's %a and %A, aggregation keys and JSON
# values; umod() still prints the module.  Without it, the same script
# prints symbols.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
I='              '	# DTrace's stack indent

. "$TESTDIR/sh/lib/check_lib.sh"
pad() {	# the text DTrace's "  %-50s" makes of $1
	printf '  %-50s' "$1"
}

# add's offset in the mapping of the loadable segment that holds it
add=$((0x$(nm "$T" | awk '$3 == "add" { print $1 }')))
page=$(getconf PAGESIZE)
seg=$(readelf -lW "$T" | awk '$1 == "LOAD" { print $3, $6 }' |
	while read -r vaddr memsz; do
		if [ $((vaddr)) -le $add ] && [ $add -lt $((vaddr + memsz)) ]; then
			echo $((vaddr)); break
		fi
	done)
[ -n "$seg" ] || { echo "FAIL: no segment of $T holds add"; exit 1; }
OFF=$(printf '%x' $((add - (seg & ~(page - 1)))))

ACTIONS='pid$target:a.out:add:entry {
	ustack(2); ufunc(uregs[R_PC]); usym(uregs[R_PC] + 1);
	umod(uregs[R_PC]); uaddr(uregs[R_PC]); uaddr(16); printf("|\n");
	printf("%a %A [%-20a]\n", uregs[R_PC], uregs[R_PC], uregs[R_PC]);
	exit(0); }'

# 1. by default: symbols
out=$("$DTRACE" -q -c "$T -s 1000 0" -n "$ACTIONS" 2>err | grep -v '^pid ')
check "resolved" "$out" \
	"\|${I}pidtarget\`add\|${I}pidtarget\`main\+0x[0-9a-f]+\|$(pad 'pidtarget`add')$(pad 'pidtarget`add')$(pad pidtarget)$(pad 'pidtarget`add')$(pad 0x10)\|\|pidtarget\`add pidtarget\`add \[pidtarget\`add       \]\|?"

# 2. -x noresolve: module:0xoffset, the same for every form
A="pidtarget:0x$OFF"
out=$("$DTRACE" -x noresolve -q -c "$T -s 1000 0" -n "$ACTIONS" 2>err |
	grep -v '^pid ')
check "noresolve" "$out" \
	"\|${I}$A\|${I}pidtarget:0x[0-9a-f]+\|$(pad "$A")$(pad "pidtarget:0x$(printf '%x' $((0x$OFF + 1)))")$(pad pidtarget)$(pad "$A")$(pad 0x10)\|\|$A $A \[$(printf '%-20s' "$A")\]\|?"
case $out in
*'`'*) echo "FAIL noresolve: a symbol was printed: $out"; status=1 ;;
esac

# 3. aggregation keys, printed after the process is gone: a ufunc() key
#    is still the function's start (as DTrace keeps it), unresolved
out=$("$DTRACE" -x noresolve -q -c "$T 3" \
	-n 'pid$target:a.out:add:entry { @[ufunc(uregs[R_PC] + 1)] = count();
	    @s[ustack(1)] = count(); }' 2>err | grep -v '^done ')
check "noresolve keys" "$out" \
	"\|*  $A +3\|\|${I}$A\| +3\|\|?"

# 4. JSON: the value is unresolved and no symbol is given
out=$("$DTRACE" -x noresolve -x oformat=json -q -c "$T -s 1000 0" \
	-n 'pid$target:a.out:add:entry { uaddr(uregs[R_PC]); exit(0); }' \
	2>err | grep '"probe"')
check "noresolve json" "$out" \
	".*\"action\":\"uaddr\",\"pid\":[0-9]+,\"address\":[0-9]+,\"module\":\"pidtarget\",\"value\":\"$A\"\}.*"
exit $status
