# SPDX-License-Identifier: MIT
# bench/unwind_gdb.py: gdb's stack where it stopped, one frame a line as
# dtrace -x noresolve prints a user address (module:0xoffset from the
# start of the mapping that holds it): bench/ustack.sh's reference for
# the unwinders' frames.  Run as gdb -batch ... -ex 'source unwind_gdb.py'.
import os
import gdb


def mappings():
    maps = []
    for line in gdb.execute("info proc mappings", to_string=True).splitlines():
        f = line.split()
        if len(f) >= 6 and f[0].startswith("0x") and f[5].startswith("/"):
            maps.append((int(f[0], 16), int(f[1], 16), os.path.basename(f[5])))
    return maps


def frame_name(maps, pc):
    for start, end, name in maps:
        if start <= pc < end:
            return "%s:0x%x" % (name, pc - start)
    return "0x%x" % pc


maps = mappings()
frame = gdb.newest_frame()
while frame is not None:
    print("FRAME " + frame_name(maps, frame.pc()))
    frame = frame.older()
