#!/bin/bash
# SPDX-License-Identifier: MIT
# A destructive action compiles without -w, and the enabling is refused as
# DTrace refuses it; with -w (or -x destructive) it runs.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

"$DTRACE" -n 'BEGIN { system("echo ran"); exit(0); }' >out 2>err
rc=$?
expected="dtrace: description 'BEGIN ' matched 1 probe
dtrace: could not enable tracing: Destructive actions not allowed"
if [ $rc != 1 ] || [ -s out ] || [ "$(cat err)" != "$expected" ]; then
	echo "without -w: exit $rc, stdout:"; cat out; echo "stderr:"; cat err
	status=1
fi

for opt in -w "-x destructive"; do
	# shellcheck disable=SC2086
	"$DTRACE" -q $opt -n 'BEGIN { system("echo ran"); exit(0); }' \
		>out 2>err
	rc=$?
	if [ $rc != 0 ] || [ "$(sed '/^$/d' out)" != "ran" ]; then
		echo "$opt: exit $rc, stdout:"; cat out; echo "stderr:"; cat err
		status=1
	fi
done
# copyout() and copyoutstr(): without -w DTrace's refusal of the enabling;
# with it, the kernel's refusal of BPF writes to user memory, named
for f in 'copyout(alloca(1), 0, 1)' 'copyoutstr("x", 0, 2)'; do
	"$DTRACE" -n "BEGIN { $f; exit(0); }" >out 2>err
	rc=$?
	if [ $rc != 1 ] || [ "$(cat err)" != "$expected" ]; then
		echo "$f without -w: exit $rc, stderr:"; cat err
		status=1
	fi
	"$DTRACE" -w -n "BEGIN { $f; exit(0); }" >out 2>err
	rc=$?
	if [ $rc != 1 ] || ! grep -q "${f%%(*}( ) is not supported: BPF programs may not write user memory (bpf_probe_write_user() is refused under kernel lockdown)" err; then
		echo "$f with -w: exit $rc, stderr:"; cat err
		status=1
	fi
done
exit $status
