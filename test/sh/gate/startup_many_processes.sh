#!/bin/bash
# SPDX-License-Identifier: MIT
# Start-up does not grow with the number of processes for a description
# that cannot match a USDT probe, and stays cheap for one that can (#36).
# With 300 sleeping processes besides:
#  - `BEGIN { exit(0); }` opens no /proc/PID/maps of them (a bare BEGIN is
#    the dtrace provider's: the usdt provider is not asked), nor does
#    `syscall::getpid:entry` (a provider another plugin names exactly);
#  - `sdt_test*:::consts`, which covers every process, still finds the
#    probe of a <sys/sdt.h> program among them, and stats the perl
#    program, which they all map, at most twice (the files are known by
#    the (dev, inode) their maps lines show).
# Counts of system calls, not times.  @alone: its glob raises the
# semaphores of the programs other tests run.
# @alone
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd strace perl
need_prog sdt_args
prog=$T
# LeakSanitizer cannot run under ptrace
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# The sleepers are forked by one perl (300 shells would take seconds);
# it prints their pids, and at SIGTERM kills them.
perl -e '$| = 1; my @kids;
	for (1 .. 300) {
		my $p = fork() // die "fork: $!";
		if ($p == 0) { sleep 120; exit 0 }
		push @kids, $p; print "$p\n";
	}
	$SIG{TERM} = sub { kill "TERM", @kids; exit 0 };
	print "ready\n"; sleep 120;' >sleepers.out &
forker=$!
target=
cleanup() {
	kill "$forker" 2>/dev/null
	[ -n "$target" ] && kill "$target" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT
for ((i = 0; i < 100; i++)); do grep -qx ready sleepers.out && break; sleep 0.1; done
mapfile -t sleepers < <(grep -v ready sleepers.out)
[ ${#sleepers[@]} -eq 300 ] || { fail "300 sleepers did not start"; exit 1; }
SDT_ARGS_READY=$PWD/ready "$prog" 0 50 >/dev/null &
target=$!
for ((i = 0; i < 100; i++)); do [ -e ready ] && break; sleep 0.1; done
[ -e ready ] || { fail "sdt_args did not start"; exit 1; }

# maps_opened TRACE: how many of the sleepers' /proc/PID/maps it opened
maps_opened() {
	printf '%s\n' "${sleepers[@]}" | sort >sleepers
	grep -o '"/proc/[0-9]*/maps"' "$1" | tr -dc '0-9\n' | sort -u |
		comm -12 - sleepers | wc -l
}

for d in 'BEGIN { exit(0); }' 'syscall::getpid:entry {} BEGIN { exit(0); }'; do
	strace -f -qq -o trace -e trace=openat "$DTRACE" -q -n "$d" \
		>out 2>err || { fail "$d: exit status"; cat err; }
	n=$(maps_opened trace)
	[ "$n" -eq 0 ] || fail "$d: opened the maps of $n of 300 processes"
done

strace -f -qq -o trace -e trace=openat,newfstatat,stat "$DTRACE" -q -n \
	'sdt_test*:::consts { printf("pid %d\n", pid); exit(0); }' \
	>out 2>err || { fail "sdt_test*: exit status"; cat err; }
grep -qx "pid $target" out || { fail "sdt_test*: did not fire in $target"; cat out err; }
n=$(maps_opened trace)
[ "$n" -eq 300 ] || fail "sdt_test*: read the maps of $n of 300 processes"
perl=$(readlink -f /proc/"${sleepers[0]}"/exe)
n=$(grep -c "stat.*\"$perl\"" trace)
[ "$n" -le 2 ] || fail "sdt_test*: stat $perl $n times"
exit $status
