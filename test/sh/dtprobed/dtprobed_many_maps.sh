#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 90
# dtprobed starts quickly beside a process that maps 5,000 small files
# executable.  At start it looks for the registrations sent while no
# daemon listened, in every file a process maps executable; it read each
# in a child of its own, and such a process delayed its start from 0.13 s
# to 11.4 s (a minute on a loaded machine).  A file that is no 64-bit ELF
# file with section headers within it, read from its first 64 bytes, is
# now passed over.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/daemon_lib.sh"
[ -x /usr/bin/python3 ] || { echo "no /usr/bin/python3"; exit 77; }
mkdir files
# (the mapper talks to this test's socket: the daemon looks at it)
python3 -c '
import mmap, os, sys, time
maps = []
for i in range(5000):
    fd = os.open("files/f%d" % i, os.O_RDWR | os.O_CREAT, 0o644)
    os.write(fd, b"small file %d\n" % i)
    maps.append(mmap.mmap(fd, 0, prot=mmap.PROT_READ | mmap.PROT_EXEC))
    os.close(fd)
print("ready", flush=True)
time.sleep(60)' >mapper &
mapper=$!; bgpids+=("$mapper")
wait_for 30 grep -q ready mapper || { fail "the mapper did not start"; exit 1; }
[ "$(grep -c ' /.*/files/f' "/proc/$mapper/maps")" -ge 5000 ] ||
	fail "the files are not mapped"
t0=$(date +%s%N)
start_daemon
ms=$((($(date +%s%N) - t0) / 1000000))
echo "dtprobed started in $ms ms beside 5,000 mapped files"
# 0.5 s on a loaded machine; a child a file took 11 to 65 s there.
[ "$ms" -lt 5000 ] || fail "dtprobed took $ms ms to start"
exit $status
