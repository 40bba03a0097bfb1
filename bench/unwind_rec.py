# SPDX-License-Identifier: MIT
# bench/unwind_rec.py N: N times a recursive Python function that calls
# itself back through C (sorted()'s key), so that its C stack is deep, and
# calls getpid() at the bottom: bench/ustack.sh's python3.11 stacks.
import os
import sys


def r(n):
    return os.getpid() if n == 0 else sorted([n - 1], key=r)[0]


for i in range(int(sys.argv[1])):
    r(2)
print("done")
