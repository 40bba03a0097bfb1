#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# Malformed files found at discovery cannot harm dtprobed: a process maps,
# executable, copies of a `dtrace -G` program damaged in each part the
# discovery reads (section headers out of the file, a string table index
# out of range, a .dtrace_prov section that runs past the file, is
# overwritten with noise or whose image claims 4 GiB, noise over
# .note.stapsdt, every section's size huge); the daemon, started after them, reads each in its reader child
# (dtprobed/dtp_discover.c), registers none of them, and goes on: it
# finds the intact program a second process runs and takes a registration
# sent after its walk.  Each reader child is jailed: what a subverted one
# would try (DTPROBED_FAULT_DISCOVER_ESCAPE: create a file, remove one,
# signal the daemon) is refused with EPERM, and said in the log.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
[ -x /usr/bin/python3 ] || { echo "no python3"; exit 77; }
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1

# The damaged copies, by what is damaged.
/usr/bin/python3 - "$W/app" <<'PY' || { fail "damaging the copies"; exit 1; }
import random, struct, sys
src = sys.argv[1]
orig = open(src, 'rb').read()
shoff, = struct.unpack_from('<Q', orig, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', orig, 0x3a)
def sh(d, i):
    return struct.unpack_from('<IIQQQQ', d, shoff + i * shentsize)
stroff = sh(orig, shstrndx)[4]
def section(d, name):
    for i in range(shnum):
        n = sh(d, i)[0]
        if d[stroff + n:stroff + n + len(name) + 1] == name + b'\0':
            return i
    sys.exit('no section ' + name.decode())
def write(tag, d):
    open(src + '_' + tag, 'wb').write(d)
rnd = random.Random(36)
def noise(n):
    return bytes(rnd.randrange(256) for _ in range(n))

d = bytearray(orig); struct.pack_into('<Q', d, 0x28, len(d) + 4096)
write('shoff', d)
d = bytearray(orig); struct.pack_into('<H', d, 0x3e, 0xfff0)
write('shstrndx', d)
d = bytearray(orig); i = section(d, b'.dtrace_prov')
struct.pack_into('<QQ', d, shoff + i * shentsize + 24, len(d) - 16, 1 << 40)
write('provpast', d)
d = bytearray(orig); i = section(d, b'.dtrace_prov'); o, s = sh(d, i)[4:6]
d[o:o + s] = noise(s)
write('provnoise', d)
d = bytearray(orig); i = section(d, b'.dtrace_prov'); o = sh(d, i)[4]
o = d.index(b'DTPV', o); struct.pack_into('<I', d, o + 8, 0xfffffff0)
write('provsize', d)
d = bytearray(orig); i = section(d, b'.note.stapsdt'); o, s = sh(d, i)[4:6]
d[o:o + s] = noise(s)
write('notenoise', d)
d = bytearray(orig)
for i in range(1, shnum):
    struct.pack_into('<Q', d, shoff + i * shentsize + 32, (1 << 63) + i)
write('sizes', d)
PY
kinds="shoff shstrndx provpast provnoise provsize notenoise sizes"

# One process maps every damaged copy executable; another runs the
# intact program.
/usr/bin/python3 -c 'import mmap, os, sys, time
maps = []
for p in sys.argv[1:]:
    f = os.open(p, os.O_RDONLY)
    maps.append(mmap.mmap(f, 0, prot=mmap.PROT_READ | mmap.PROT_EXEC))
print("mapped", flush=True)
time.sleep(60)' $(for k in $kinds; do echo "$W/app_$k"; done) >mapper.out &
mapper=$!; bgpids+=("$mapper")
"$W/app" 300 20 >app.out & app=$!; bgpids+=("$app")	# 6 s
wait_for 5 grep -q mapped mapper.out || { fail "the copies are not mapped"; exit 1; }
sleep 1				# the app's registration code gives up after 0.5 s

mkdir esc && : >esc/kept || exit 1
DTPROBED_FAULT_DISCOVER_ESCAPE=$W/esc start_daemon
wait_for 10 test -f "state/$app" || fail "the intact program not found"
grep -q "found registration of pid $app: provider myapp in $W/app\$" \
	dtprobed.log || fail "no log line for the intact program"
[ -e "state/$mapper" ] && { fail "a damaged copy registered"; cat "state/$mapper"; }
grep -q "^dtprobed: found registration of pid $mapper" dtprobed.log &&
	fail "found registration of a damaged copy: $(grep "pid $mapper" dtprobed.log)"
# the copy whose first image claims 4 GiB: read, and refused with a reason
grep -q "refused found registration of pid $mapper ($W/app_provsize): damaged declarations in .dtrace_prov" \
	dtprobed.log || fail "the damaged image not refused with its reason"
kill -0 "$dpid" 2>/dev/null || fail "dtprobed died"
# the jail: nothing written, removed or signalled
e='Operation not permitted'
grep -qF "refused found registration of pid $app ($W/app): escape: create $e, remove $e, signal $e" \
	dtprobed.log || fail "the reader of the intact program was not jailed"
[ -e esc/created ] && fail "a reader child created a file"
[ -e esc/kept ] || fail "a reader child removed a file"

# Still serving: a program started now registers.
"$W/app" 100 20 >app2.out & app2=$!; bgpids+=("$app2")
wait_for 10 test -f "state/$app2" || fail "a registration after the walk not taken"
wait "$app2" || fail "the second program exited with $?"
kill -0 "$dpid" 2>/dev/null || fail "dtprobed died"
[ $status = 0 ] || { echo "--- dtprobed.log"; tail -30 dtprobed.log; }
exit $status
