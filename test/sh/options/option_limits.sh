#!/bin/bash
# SPDX-License-Identifier: MIT
# Sizes out of their range are refused by name, at once (-b 2^64-1 used to
# spin forever doubling the ring buffer's size; sizes above 4 GiB failed
# with a map error, dynvarsize=2^64-1 with one at enabling), and a script larger than 16 MB (-s /dev/zero, which
# used to grow memory without bound) is refused with a message.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

refused() {	# STDERR-LINE dtrace-args...
	local want=$1
	shift
	timeout 20 "$DTRACE" "$@" >out 2>err
	local rc=$?
	if [ $rc != 1 ] || [ "$(cat err)" != "$want" ]; then
		echo "dtrace $*: exit status $rc (expected 1); stderr:"
		head -5 err; echo "expected: $want"
		status=1
	fi
}

refused 'dtrace: failed to set option -x bufsize=18446744073709551615: value must be at most 2g' \
	-b 18446744073709551615 -n 'BEGIN { exit(0); }'
refused 'dtrace: failed to set option -x bufsize=5g: value must be at most 2g' \
	-x bufsize=5g -n 'BEGIN { exit(0); }'
# below DTrace's minimum (room for one record): refused when enabling,
# whatever the clauses record, as DTrace refuses it
for b in 0 15; do
	refused "dtrace: description 'BEGIN ' matched 1 probe
dtrace: could not enable tracing: Enabling exceeds size of buffer" \
		-b $b -n 'BEGIN { x = 1; }'
done
refused 'dtrace: failed to set option -x aggsize=16t: value must be between 1 and 4g' \
	-x aggsize=16t -n 'BEGIN { exit(0); }'
refused 'dtrace: failed to set option -x dynvarsize=18446744073709551615: value must be at most 4g' \
	-x dynvarsize=18446744073709551615 -n 'BEGIN { self->x = 1; exit(0); }'
refused 'dtrace: failed to set option -x strsize=8k: value must be between 2 and 4096' \
	-x strsize=8k -n 'BEGIN { exit(0); }'
# as a pragma, the same check
printf '#pragma D option bufsize=3g\nBEGIN { exit(0); }\n' >big.d
timeout 20 "$DTRACE" -s big.d >out 2>err
if [ $? != 1 ] || ! grep -q "option 'bufsize' to '3g': value must be at most 2g" err; then
	echo "pragma bufsize=3g not refused:"; head -5 err
	status=1
fi

# the largest sizes are accepted (-e: compiled only, a 2 GiB ring buffer
# would take 4 GiB of the test machine)
timeout 20 "$DTRACE" -q -e -b 2g -x aggsize=4g -x dynvarsize=4g \
	-n 'BEGIN { @ = count(); self->x = 1; exit(0); }' >out 2>err
if [ $? != 0 ]; then
	echo "-b 2g -x aggsize=4g -x dynvarsize=4g failed:"; head -5 err
	status=1
fi

refused 'dtrace: failed to read /dev/zero: script is larger than 16 MB' \
	-s /dev/zero
exit $status
