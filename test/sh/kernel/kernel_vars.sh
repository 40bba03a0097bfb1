#!/bin/bash
# SPDX-License-Identifier: MIT
# Kernel variables by name (`name, vmlinux`name): a per-CPU variable of
# the kernel's BTF reads this CPU's instance, so `cpu_number and
# vmlinux`runqueues.cpu are D's cpu, at profile probes on every CPU, at a
# system call and at a user probe (pid provider), where curthread's reads
# are the kernel's too; one has an address (&`runqueues) and is read in
# a predicate.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
[ -r /sys/kernel/btf/vmlinux ] || { echo "no kernel BTF"; exit 77; }
same='`cpu_number == cpu && vmlinux`runqueues.cpu == cpu ? "same" : "differs"'

"$DTRACE" -q -n "profile-997 { @[$same] = count(); }
	profile-997 /++n > 200/ { exit(0); }
	END { printa(\"%s\\n\", @); }" >out 2>err || fail_run "profile failed"
[ "$(grep -v '^$' out)" = same ] || fail "profile: got '$(cat out)'"

"$DTRACE" -q -n "syscall::write:entry /pid == \$target/ { printf(\"%s\\n\", $same); }
	pid\$target:a.out:add:entry { printf(\"%s\\n\", $same); exit(0); }" \
	-c "$T 1" >out 2>err || fail_run "syscall and pid failed"
[ "$(grep -c '^same$' out)" -ge 1 ] && ! grep -q differs out ||
	fail "syscall and pid: got '$(cat out)'"
"$DTRACE" -q -n 'BEGIN /`cpu_number == cpu/ {
	printf("%d %d\n", (&`runqueues)->cpu == cpu,
	    *&vmlinux`runqueues.cpu == cpu);
	exit(0);
}' >out 2>err || fail_run "address failed"
[ "$(cat out)" = "1 1" ] || fail "address: got '$(cat out)', want '1 1'"
exit $status
