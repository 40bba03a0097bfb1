#!/bin/bash
# SPDX-License-Identifier: MIT
# A user cannot crash root's dtrace by truncating a file its process maps
# while dtrace reads it.  The user preloads a library of its own into a
# sleeping program, then empties the library and writes it back, over and
# over (the same inode: a library, unlike a running executable, may be
# written).  `dtrace -l -n 'zzznomatch*:::'` reads the USDT notes of every
# process's mapped files: libelf used to map them (ELF_C_READ_MMAP), and a
# page past the file's new end raised SIGBUS in dtrace; dt_elf.c now reads
# with pread() (ELF_C_READ), which a truncation only cuts short.
#
# Before the fix, 1 to 2 runs in 10 died of SIGBUS; 40 runs make a miss
# unlikely (a few in a hundred).  Each run ends in well under a second; 20 s
# is its bound.
# @timeout: 90
# @alone
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
lib=$(ls /usr/lib/x86_64-linux-gnu/libstdc++.so.6 2>/dev/null)
[ -n "$lib" ] || { echo "no libstdc++.so.6 to preload"; exit 77; }
. "$TESTDIR/sh/lib/user_lib.sh"
status=0

throwaway_user
d=$(user_dir u) || { echo "cannot make the user's directory"; exit 1; }
cp "$lib" "$d/orig" && cp "$lib" "$d/lib.so" && cp /bin/sleep "$d/prog" &&
	chown "$TUSER" "$d/orig" "$d/lib.so" "$d/prog" ||
	{ echo "cannot set the user's files up"; exit 1; }
cd "$d" || exit 1

# mapped: whether the user's program maps its library yet
mapped() {
	local pid
	for pid in $(pgrep -u "$TUID" -x prog); do
		grep -q "$d/lib.so" "/proc/$pid/maps" 2>/dev/null && return 0
	done
	return 1
}
as_user env LD_PRELOAD="$d/lib.so" ./prog 300 &
for _ in $(seq 50); do mapped && break; sleep 0.1; done
mapped || { echo "the user's program did not map its library"; exit 1; }
as_user sh -c 'while :; do : >lib.so; cat orig >lib.so; done' &

for i in $(seq 40); do
	timeout -k 5 20 "$DTRACE" -l -n 'zzznomatch*:::' >list.out 2>list.err
	rc=$?
	if [ $rc != 0 ]; then
		fail "dtrace -l run $i ended with status $rc" \
			"$([ $rc = 135 ] && echo '(SIGBUS)')"
		cat list.err
		break
	fi
done
exit $status
