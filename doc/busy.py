# SPDX-License-Identifier: MIT
# doc/busy.py: the program of README's flame graph (doc/flamegraph-python3.11.svg):
# JSON, regular expressions and hashing, for 1.5 seconds.
import json, re, hashlib, time
def parse(n):
    return [json.loads(json.dumps({"i": i, "s": "x" * (i % 50)})) for i in range(n)]
def match(n):
    pat = re.compile(r"(\w+)@(\w+)\.com")
    return sum(1 for i in range(n) if pat.match("user%d@host%d.com" % (i, i)))
def digest(n):
    h = hashlib.sha256()
    for i in range(n):
        h.update(str(i).encode())
    return h.hexdigest()
t = time.time()
while time.time() - t < 1.5:
    parse(2000); match(4000); digest(20000)
