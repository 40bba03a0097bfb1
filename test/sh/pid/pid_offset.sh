#!/bin/bash
# SPDX-License-Identifier: MIT
# Offset probes: "add:0" and "add:entry" share one uprobe and each fires once
# per call; the offset of add's second instruction (from objdump) fires;
# "add:" creates entry, return and one probe per instruction, named in hex.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
need_cmd objdump

# offsets of add's instructions, in hex without 0x, as DTrace names them
start=$(nm "$T" | awk '$3 == "add" { print $1 }')
offs=$(objdump -d --no-show-raw-insn "$T" |
       awk -v s="$start" '
	$0 ~ "^0*" s " <add>:" { on = 1; next }
	on && /^$/ { exit }
	on { a = $1; sub(":", "", a); print a }' |
       while read -r a; do printf '%x\n' $((0x$a - 0x$start)); done)
second=$(echo "$offs" | sed -n 2p)
[ -n "$second" ] || { echo "cannot read add's instructions"; exit 1; }

"$DTRACE" -q -c "$T 3" \
	-n 'pid$target:a.out:add:entry { printf("entry\n"); }' \
	-n 'pid$target:a.out:add:0 { printf("off0\n"); }' \
	-n "pid\$target:a.out:add:$second { printf(\"second %s\\n\", probename); }" \
	>out 2>err
rc=$?
for what in entry off0 "second $second"; do
	n=$(grep -cx "$what" out)
	if [ "$n" != 3 ]; then
		echo "'$what' fired $n times, not 3"; status=1
	fi
done
[ $rc = 0 ] || { echo "exit $rc"; status=1; }

# every instruction: the probe names are exactly the offsets, plus entry
# and return
"$DTRACE" -l -c "$T 1" -n 'pid$target:a.out:add:' >list 2>err2
names=$(awk 'NR > 1 { print $NF }' list | sort)
want=$( (echo "$offs"; echo entry; echo return) | sort)
if [ "$names" != "$want" ]; then
	echo "probes of add: were"; echo "$names"; echo "expected"; echo "$want"
	cat err2; status=1
fi
[ $status = 0 ] || { echo "stdout:"; cat out; echo "stderr:"; cat err; }
exit $status
