#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# test/vm/init.sh: /init of the test virtual machine (test/vm/check-vm.sh).
# Mounts what dtrace needs, runs each script of /dtrace/tests (exit 0
# passes, 77 skips, anything else fails, each given 300 s), prints its
# output when it fails, then "N passed, N failed", and powers off.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
mount -t tmpfs tmpfs /tmp
ulimit -l unlimited

export DTRACE=/dtrace/dtrace DTRACE_PLUGIN_PATH=/dtrace/plugins
export PROGS=/dtrace/progs KFLOOR=/dtrace/bench/kernel_floor
export B=/dtrace/b	# the scripts of test/sh find $B/test/progs
export TESTDIR=/dtrace/testdir	# and their libraries in $TESTDIR/sh/lib
echo "=== dtrace vm tests on $(uname -r)"
pass=0 fail=0
cd /tmp
for t in /dtrace/tests/*.sh; do
	name=$(basename "$t")
	[ "$name" = check_lib.sh ] && continue
	timeout 300 /bin/bash "$t" >/tmp/out.log 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		echo "PASS $name"; pass=$((pass + 1))
	elif [ $rc = 77 ]; then
		echo "SKIP $name: $(tail -n 1 /tmp/out.log)"
	else
		echo "FAIL $name"; sed 's/^/    /' /tmp/out.log
		echo "    exit status $rc"; fail=$((fail + 1))
	fi
	[ $rc = 0 ] && grep -q '^figure:' /tmp/out.log && sed -n 's/^figure: /    /p' /tmp/out.log
done
echo "$pass passed, $fail failed"
sync
poweroff -f
