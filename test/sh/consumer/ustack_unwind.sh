#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 60
# ustack() unwinds with the call frame information of the modules, not
# frame pointers: stacks through Debian's libc (built without them) into
# nofp (built without them too) are right frame by frame, at a function's
# entry, inside its prologue, at its return and under pending return
# probes (which replace return addresses on the stack); -x ustackframes
# and aggregation keys; ustackdepth; /bin/ls and python3.11 stacks have no frame
# outside their modules (the garbage a frame-pointer walk finds there).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog nofp
. "$TESTDIR/sh/lib/check_lib.sh"
I='              '	# DTrace's stack indent
O='\+0x[0-9a-f]+'	# an offset
# from main down, as every stack of nofp ends
BASE="${I}nofp\`main$O\|${I}libc\.so\.6\`__libc_start_call_main$O\|${I}libc\.so\.6\`__libc_start_main$O\|${I}nofp\`_start$O\|"

# 1. malloc's entry, in libc, called from level3
out=$("$DTRACE" -q -c "$T 1" -n 'pid$target:libc.so.6:malloc:entry
	/arg0 == 201/ { ustack(); }' 2>err | grep -v '^done')
check "malloc entry" "$out" \
	"\|${I}libc\.so\.6\`malloc\|${I}nofp\`level3$O\|${I}nofp\`level2$O\|${I}nofp\`level1$O\|$BASE"

# 2. inside level3's prologue (after push %rbx: a frame-pointer walk and a
#    walk from the top of the stack are both wrong there), and at its
#    return (the stack of its caller), with return probes pending on all
#    three levels
out=$("$DTRACE" -q -c "$T 1" -n 'pid$target:a.out:level3:1 { ustack(); }' \
	-n 'pid$target:a.out:level3:return { ustack(); }' \
	-n 'pid$target:a.out:level*:return { }' 2>err | grep -v '^done')
check "prologue, return" "$out" \
	"\|${I}nofp\`level3\+0x1\|${I}nofp\`level2$O\|${I}nofp\`level1$O\|$BASE\|${I}nofp\`level2$O\|${I}nofp\`level1$O\|$BASE"

# 3. -x ustackframes, and ustack(n) over it
out=$("$DTRACE" -q -x ustackframes=2 -c "$T 1" \
	-n 'pid$target:a.out:level3:entry { ustack(); ustack(3); }' 2>err |
	grep -v '^done')
check "ustackframes" "$out" \
	"\|${I}nofp\`level3\|${I}nofp\`level2$O\|\|${I}nofp\`level3\|${I}nofp\`level2$O\|${I}nofp\`level1$O\|"

# 4. an aggregation key, with another key, printed after the process exited
out=$("$DTRACE" -q -c "$T 4" -n 'pid$target:libc.so.6:malloc:entry
	/arg0 > 200 && arg0 < 300/ { @[probefunc, ustack(4)] = count(); }' 2>err |
	grep -v '^done')
check "key" "$out" \
	"\|  malloc +\|${I}libc\.so\.6\`malloc\|${I}nofp\`level3$O\|${I}nofp\`level2$O\|${I}nofp\`level1$O\| +4\|\|?"

# 5. ustackdepth: the frames of the whole stack (not -x ustackframes'),
#    traced, printed, as an aggregation's key and value, and in JSON
out=$("$DTRACE" -q -x ustackframes=2 -c "$T 1" -n 'pid$target:libc.so.6:malloc:entry
	/arg0 == 201/ { trace(ustackdepth); printf(" %d\n", ustackdepth);
	@k[ustackdepth] = count(); @v = max(ustackdepth); }' 2>err |
	grep -v '^done')
check "ustackdepth" "$out" "8 8\|\|        8                1\|                8\|"
out=$("$DTRACE" -q -x oformat=json -c "$T 1" -n 'pid$target:a.out:level3:entry
	{ trace(ustackdepth); }' 2>err | grep -v '^done')
check "ustackdepth json" "$out" '.*"actions":\[\{"action":"trace","value":7\}\]\}\|'

# 6. real binaries: every frame in a module (module`symbol or
#    module`0xaddress), none bare
garbage() {	# name, the stacks: frames outside every module fail
	local bad
	bad=$(grep -E "^${I}" <<<"$2" | grep -Ev '^ +[0-9]+$' |
		grep -Ev "^${I}[^ \`]+\`[^ ]+$" | head -3)
	if [ -n "$bad" ] || ! grep -Eq "$3" <<<"$2"; then
		echo "FAIL $1: frames outside modules or no $3:"
		printf '%s\n' "$bad"; head -30 <<<"$2"; status=1
	fi
}
out=$("$DTRACE" -q -c '/bin/ls /' -n 'pid$target:libc.so.6:malloc:entry {
	@[ustack()] = count(); }' 2>err)
garbage "/bin/ls" "$out" "${I}libc\.so\.6\`setlocale$O"
if [ -x /usr/bin/python3.11 ]; then
	# it lives on until dtrace has unwound every record (exit() drains
	# them, then dtrace ends it): its frames in _json, which it dlopens,
	# are found while it maps it, however slow the build (README: Limits)
	out=$("$DTRACE" -q -c '/usr/bin/python3.11 -c "import json, time; json.dumps(list(range(100))); time.sleep(60)"' \
		-n 'pid$target:libc.so.6:malloc:entry { @[ustack()] = count(); }' \
		-n 'tick-2s { exit(0); }' 2>err)
	garbage "python3.11" "$out" "python3\.11\`_PyEval_EvalFrameDefault$O"
fi
exit $status
