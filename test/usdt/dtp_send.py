#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dtp_send.py: registration messages sent straight to dtprobed's socket.

    dtp_send.py SOCKET bad     send malformed, truncated, oversized and lying
                               messages, one per connection; print how many
    dtp_send.py SOCKET good    register a well-formed provider "pyprov" for
                               this process (its own code), then sleep 3 s
    dtp_send.py SOCKET answer STATEDIR
                               register "pyprov" as good does and wait
                               for the answer, then send a sync and wait
                               for its answer; print "early" when STATEDIR
                               had no state file of this process at the
                               first answer, else "recorded", then
                               "synced" when it had one at the second,
                               else "unsynced"
    dtp_send.py SOCKET sync    send a sync, as a dtrace session about to
                               read the state does, and wait for its answer
                               (the daemon then wants the children that
                               programs fork registered for a while)
    dtp_send.py SOCKET flood   send 300 garbage messages as fast as possible
    dtp_send.py SOCKET once    send the message good sends, and exit at once
                               (no wait for the answer)
    dtp_send.py SOCKET timed N register "pyprov" as good does N times, each
                               on a connection of its own; print the
                               milliseconds each answer took, a line each
    dtp_send.py SOCKET idle N SECONDS
                               open N connections, send nothing, hold
                               them for SECONDS
    dtp_send.py SOCKET refuse-once
                               listen on SOCKET as dtprobed would; close
                               the first connection unanswered, answer the
                               second with DTPV_OP_DONE; print the op and
                               size of each message, then exit
    dtp_send.py SOCKET sites NSITES NREGS SECONDS
                               register NREGS providers (flood0, flood1...)
                               of one probe with NSITES sites each in this
                               process's code, each waiting for its answer;
                               print "answered NREGS", then sleep SECONDS
    dtp_send.py SOCKET map FILE PROVIDER PROBE TYPE
                               map FILE executable and register PROBE of
                               PROVIDER in it with one argument of TYPE;
                               print "registered" once answered, then
                               sleep 30 s

The message layout is libusdt/dtprobed_proto.h, version 1.
"""
import os
import socket
import struct
import sys
import time

HDR = struct.Struct('<4sHHII5IIIIIIIII4xQQ')   # 88 bytes
PROBE = struct.Struct('<IBBHII12B')             # 28 bytes
SITE = struct.Struct('<QQII')                   # 24 bytes
assert HDR.size == 88 and PROBE.size == 28 and SITE.size == 24


SYNC = HDR.pack(b'DTPV', 1, 7, HDR.size, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0)       # DTPV_OP_SYNC


def own_code():
    """Start address of an executable file mapping of this process."""
    with open('/proc/self/maps') as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[1][2] == 'x' and parts[5].startswith('/'):
                return int(parts[0].split('-')[0], 16)
    raise SystemExit('no executable mapping')


def message(provider=b'pyprov', probe=b'fire', base=None, site=None,
            nargs=1, mapping=0, op=1, argtype=b'int', site_probe=0,
            nsites=1, **override):
    code = own_code() if base is None or site is None else 0
    base = code if base is None else base
    site = code + 16 if site is None else site
    strtab = b'\0' + provider + b'\0' + probe + b'\0' + argtype + b'\0'
    s_prov, s_probe = 1, 2 + len(provider)
    s_int = s_probe + len(probe) + 1
    probes_off = HDR.size
    types_off = probes_off + PROBE.size
    types = struct.pack('<I', s_int) * 2
    strtab_off = types_off + len(types)
    sites_off = (strtab_off + len(strtab) + 7) & ~7
    sites = b''.join(SITE.pack(site + i, 0, site_probe, 0)
                     for i in range(nsites))
    size = sites_off + len(sites)
    f = dict(magic=b'DTPV', version=1, op=op, size=size, provider_off=s_prov,
             nprobes=1, probes_off=probes_off, ntypes=2, types_off=types_off,
             nsites=nsites, sites_off=sites_off, strtab_off=strtab_off,
             strtab_size=len(strtab), base=base)
    f.update(override)
    hdr = HDR.pack(f['magic'], f['version'], f['op'], f['size'],
                   f['provider_off'], 0, 0, 0, 0, 0, f['nprobes'],
                   f['probes_off'], f['ntypes'], f['types_off'], f['nsites'],
                   f['sites_off'], f['strtab_off'], f['strtab_size'],
                   f['base'], 0)
    maps = [mapping] + [0] * 11
    pr = PROBE.pack(s_probe, nargs, nargs, 0, 0, 1, *maps)
    body = hdr + pr + types + strtab
    body += b'\0' * (sites_off - len(body)) + sites
    return body


def send(sock_path, data, pause=0.05):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.setsockopt(socket.SOL_SOCKET, 32, 8 << 20)   # SO_SNDBUFFORCE
    except OSError:
        pass
    s.connect(sock_path)
    s.send(data)
    s.close()
    time.sleep(pause)


def ask(sock_path, data):
    """Send data on a connection of its own and wait for the answer."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sock_path)
    s.send(data)
    s.settimeout(20)
    s.recv(64)
    s.close()


def bad_cases():
    good = message()
    return [
        ('garbage', b'hello, dtprobed'),
        ('truncated header', good[:40]),
        ('truncated body', good[:len(good) - 30]),
        ('bad magic', message(magic=b'XXXX')),
        ('bad version', message(version=9)),
        ('bad op', message(op=7)),
        ('size lies', message(size=len(good) + 100)),
        ('probes outside', message(probes_off=0xfffffff0)),
        ('count overflow', message(nprobes=0x7fffffff)),
        ('strtab outside', message(strtab_size=0x10000000)),
        ('strtab unterminated', message(strtab_size=16)),
        ('string offset outside', message(provider_off=5000)),
        ('bad provider name', message(provider=b'a b;rm')),
        ('bad probe name', message(probe=b'x\x01y')),
        ('too many args', message(nargs=17)),
        ('mapping outside', message(mapping=5)),
        ('lying site', message(site=0x1000)),
        ('lying base', message(base=0x10)),
        ('oversized', good + b'\0' * (2 << 20)),
        ('unregistration, sites outside', message(op=2, sites_off=0xfffffff0)),
        ('unregistration, site of no probe', message(op=2, site_probe=3)),
    ]


def idle(path, n, seconds):
    """Open n connections, send nothing, hold them for seconds."""
    conns = []
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            s.connect(path)
        except OSError:
            s.close()
            continue
        conns.append(s)
    print('idle', len(conns), flush=True)
    time.sleep(seconds)


def refuse_once(path):
    """A daemon that refuses the first message and takes the second."""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    srv.bind(path)
    srv.listen(8)
    for answer in (False, True):
        conn, _ = srv.accept()
        conn.settimeout(10)
        msg = conn.recv(1 << 20)
        op = struct.unpack_from('<H', msg, 6)[0] if len(msg) >= 8 else 0
        print('op', op, 'size', len(msg), flush=True)
        if answer:
            conn.send(struct.pack('<4sHHII', b'DTPN', 1, 6, 0, 0))
        conn.close()
    srv.close()


def main():
    path, what = sys.argv[1], sys.argv[2]
    if what == 'bad':
        cases = bad_cases()
        for _, data in cases:
            send(path, data)
        # Alive until the daemon served them all (it answers a sync after
        # what came before): a case checked against this process's
        # mappings is dropped unsaid once the process is gone.
        ask(path, SYNC)
        print(len(cases))
    elif what == 'good':
        send(path, message())
        time.sleep(3)
    elif what == 'answer':
        state = '%s/%d' % (sys.argv[3], os.getpid())
        ask(path, message())
        said = 'recorded' if os.path.exists(state) else 'early'
        ask(path, SYNC)
        said += ' synced' if os.path.exists(state) else ' unsynced'
        print(said, flush=True)
    elif what == 'sync':
        ask(path, SYNC)
    elif what == 'map':
        import mmap
        with open(sys.argv[3], 'rb') as f:
            m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ | mmap.PROT_EXEC)
        start = None
        with open('/proc/self/maps') as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 6 and parts[5] == sys.argv[3] and 'x' in parts[1]:
                    start = int(parts[0].split('-')[0], 16)
        ask(path, message(
            provider=sys.argv[4].encode(), probe=sys.argv[5].encode(),
            argtype=sys.argv[6].encode(), base=start, site=start + 16))
        print('registered', flush=True)
        time.sleep(30)
        m.close()
    elif what == 'sites':
        nsites, nregs = int(sys.argv[3]), int(sys.argv[4])
        code = own_code()
        for i in range(nregs):
            ask(path, message(provider=b'flood%d' % i, nsites=nsites,
                              base=code, site=code + 16 + i * nsites))
        print('answered', nregs, flush=True)
        time.sleep(float(sys.argv[5]))
    elif what == 'once':
        send(path, message(), 0)
    elif what == 'timed':
        data = message()
        for _ in range(int(sys.argv[3])):
            t0 = time.monotonic()
            ask(path, data)
            print('%d' % ((time.monotonic() - t0) * 1000), flush=True)
    elif what == 'idle':
        idle(path, int(sys.argv[3]), float(sys.argv[4]))
    elif what == 'refuse-once':
        refuse_once(path)
    elif what == 'flood':
        for _ in range(300):
            try:
                send(path, b'x', 0)
            except OSError:
                pass
    return 0


if __name__ == '__main__':
    sys.exit(main())
