#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# A program linked with `dtrace -G` started while no dtprobed runs (its own
# registration is refused, retried and given up) is found by dtprobed when
# it starts: registered under its pid with its sites and argument mapping,
# in the state and the pinned map, and traced by a later `myapp*:::`
# session; the program is unharmed.  A program whose .dtrace_prov section
# lies is refused with the reason logged, and the daemon goes on; a file
# over the size limit is not read (the files are read in a child under
# limits, dtprobed/dtp_discover.c).
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
command -v python3 >/dev/null && [ -x /usr/bin/python3 ] ||
	{ echo "no python3"; exit 77; }
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1

# A copy whose images declare 200 arguments for every probe.
python3 - "$W/app" "$W/app_lying" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
def sh(i):
    return struct.unpack_from('<IIQQQQ', data, shoff + i * shentsize)
stroff = sh(shstrndx)[4]
for i in range(shnum):
    name, _, _, _, off, size = sh(i)
    if data[stroff + name:stroff + name + 13] == b'.dtrace_prov\0':
        at = off
        while at + 88 <= off + size:
            if data[at:at + 4] != b'DTPV':
                at += 8
                continue
            msize, = struct.unpack_from('<I', data, at + 8)
            nprobes, poff = struct.unpack_from('<II', data, at + 40)
            for p in range(nprobes):
                data[at + poff + 28 * p + 4] = 200
            at += (msize + 7) & ~7
open(sys.argv[2], 'wb').write(data)
PY
chmod +x app_lying

"$W/app" 300 20 >app.out & app=$!; bgpids+=("$app")	# 6 s
"$W/app_lying" 300 20 >/dev/null & lying=$!; bgpids+=("$lying")
# A process that maps a file of more than 1 GiB executable (sparse): the
# daemon does not read it.
truncate -s 1100M "$W/big.bin" || exit 1
# (the system's python3: a python3 on PATH may be a wrapper that forks)
/usr/bin/python3 -c 'import mmap, os, sys, time
f = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(f, 0, prot=mmap.PROT_READ | mmap.PROT_EXEC)
time.sleep(30)' "$W/big.bin" & big=$!; bgpids+=("$big")
sleep 1				# the registration code gives up after 0.5 s
[ -e "state/$app" ] && fail "registered with no dtprobed running"

start_daemon
wait_for 3 test -f "state/$app" || fail "running app not found"
grep -Eq "^reg	[0-9]+	myapp	[0-9]+	[0-9]+	0x[0-9a-f]+	$W/app\$" \
	"state/$app" || fail "reg line"
[ "$(grep -c '^site' "state/$app")" = 3 ] || fail "3 sites expected"
grep -q '^xlate	0	char \*	1$' "state/$app" || fail "argument mapping"
[ "$(map_entries "$app")" = 3 ] || fail "3 map entries expected"
grep -q "found registration of pid $app: provider myapp in $W/app\$" \
	dtprobed.log || fail "no log line"
[ -e "state/$lying" ] && fail "lying file registered"
grep -q "refused found registration of pid $lying ($W/app_lying): damaged declarations" \
	dtprobed.log || { fail "lying file not refused"; cat dtprobed.log; }
kill "$lying"			# its declarations would clash with app's
grep -q "found registration of pid $big ($W/big.bin) not read: the file is larger than" \
	dtprobed.log || fail "a file over the size limit was read"
kill "$big"

trace_myapp || exit 1
wait_for 10 has_line out "^query $app " || fail "app not traced"
wait "$app"; rc=$?
[ $rc = 0 ] || fail "app exited with $rc"
kill -INT $dt; wait $dt || fail "dtrace exited with $?"
first=$(sed -n "s/^query $app \([0-9]*\) hello\$/\1/p" out | head -1)
[ -n "$first" ] || fail "app not traced"
lost=$(missed out "$app" "${first:-300}" 300)
[ -z "$lost" ] || fail "app: missed$lost"
[ "$(grep -vc '^enabled$' app.out)" = 0 ] || fail "app.out: $(cat app.out)"
[ "$(grep -c '^enabled$' app.out)" -ge $((300 - ${first:-300})) ] ||
	fail "is-enabled not seen by the app"
kill -0 "$dpid" || fail "dtprobed died"
[ $status = 0 ] || { echo "--- out"; cat out; echo "--- err"; cat err; tail -20 dtprobed.log; }
exit $status
