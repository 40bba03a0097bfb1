#!/bin/bash
# SPDX-License-Identifier: MIT
# ufunc(), usym(), umod(), uaddr() and printf's %a/%A print user addresses
# as DTrace does: module`function (the executable by its file name),
# module`function+0xoff, the module alone; as actions ("  %-50s"), as
# aggregation keys (ufunc/usym keys of one function merge; printed at the
# end, after the process is gone), in text and in JSON.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

. "$TESTDIR/sh/lib/check_lib.sh"
pad() {	# the text DTrace's "  %-50s" makes of $1
	printf '  %-50s' "$1"
}

# 1. the actions at add's entry: add is called from main
out=$("$DTRACE" -q -c "$T 1" -n 'pid$target:a.out:add:entry {
	ufunc(uregs[R_PC]); usym(uregs[R_PC] + 1); umod(ucaller);
	uaddr(uregs[R_PC]); uaddr(ucaller); printf("|\n"); }' 2>err |
	grep -v '^done ')
check "actions" "$out" \
	"$(pad 'pidtarget`add')$(pad 'pidtarget`add')$(pad pidtarget)$(pad 'pidtarget`add')  pidtarget\`main\+0x[0-9a-f]+ +\|\|?"

# 2. printf's %a and %A, with widths; other conversions print the address
out=$("$DTRACE" -q -c "$T 1" -n 'pid$target:a.out:add:entry {
	printf("%a %A [%-20a] %d\n", uregs[R_PC], ucaller, uregs[R_PC],
	       uregs[R_PC] == uregs[R_PC]); }' 2>err | grep -v '^done ')
check "printf" "$out" \
	"pidtarget\`add pidtarget\`main\+0x[0-9a-f]+ \[pidtarget\`add {7}\] 1\|?"

# 3. keys: three calls from one site merge under ufunc; a libc caller
#    (main's) by uaddr and umod; all printed after the process exited
out=$("$DTRACE" -q -c "$T 3" -n 'pid$target:a.out:add:entry {
	@f[ufunc(ucaller)] = count(); @s[usym(uregs[R_PC] + 1)] = sum(2); }
	pid$target:a.out:main:entry { @a[uaddr(ucaller)] = count();
	@m[umod(ucaller)] = count(); }' 2>err | grep -v '^done ')
check "keys" "$out" \
	"\|  pidtarget\`main +3\|  pidtarget\`add +6\|  libc\.so\.6\`__libc_start_call_main\+0x[0-9a-f]+ +1\|  libc\.so\.6 +1\|?"

# 4. JSON: the value with its pid, address, module, symbol and offset;
#    user stacks carry the same fields per frame
"$DTRACE" -x oformat=json -c "$T 1" -n 'pid$target:a.out:add:entry {
	ufunc(uregs[R_PC]); printf("%a\n", ucaller); ustack(2);
	@[umod(ucaller)] = count(); }' >out 2>err
if ! python3 -c '
import json, sys
objs = [json.loads(l) for l in open("out") if l.startswith("{")]
acts = objs[0]["actions"]
u = acts[0]
assert u["action"] == "ufunc" and u["value"] == "pidtarget`add", u
assert u["module"] == "pidtarget" and u["symbol"] == "add" and u["offset"] == 0, u
a = acts[1]["args"][0]
assert a["symbol"] == "main" and a["offset"] > 0, a
assert acts[1]["output"] == "pidtarget`main+0x%x\n" % a["offset"], acts[1]
st = acts[2]["stack"]
assert [f["symbol"] for f in st] == ["add", "main"], st
assert st[1]["address"] == a["address"], st
k = objs[1]["data"][0]["keys"][0]
assert k["value"] == "pidtarget" and k["module"] == "pidtarget", k
' 2>pyerr; then
	echo "FAIL json:"; cat pyerr out err; status=1
fi

# 5. bad arguments are refused at compile time
refused 'ufunc()' 'usym(1, 2)' 'umod("x")' 'x = uaddr(1)' \
	 '@[ufunc(1, 2)] = count()'
exit $status
