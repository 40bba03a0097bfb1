#!/bin/bash
# SPDX-License-Identifier: MIT
# JSON lines stay whole when the program run with -c writes to the same
# standard output (a pipe here): each line of the mixed stream is either
# one of the program's lines or one parseable record.  Before, a record
# cut by stdio's buffer let the program's line into its middle (every
# run of this test failed).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd python3

"$DTRACE" -x oformat=json -b 16m -n 'pid$target:libc.so.6:write:entry {
	printf("%s %d", "write of", arg2); }' -c "python3 -u -c 'import os
for i in range(20000): os.write(1, b\"p\" * 60 + b\"\\n\")'" 2>err | cat >out
python3 - <<'EOF_PY' || { echo "stderr:"; head -5 err; exit 1; }
import json, re, sys
mine = records = 0
for n, line in enumerate(open("out", encoding="utf-8"), 1):
    line = line.rstrip("\n")
    if line == "p" * 60:
        mine += 1
        continue
    try:
        json.loads(line)
    except ValueError:
        sys.exit("line %d is neither the program's nor a record: %r" % (n, line[:200]))
    records += 1
# a slow consumer (the sanitizer build) may drop records: those are
# reported, and counted here
dropped = sum(int(m.group(1)) for m in
              re.finditer(r"^dtrace: (\d+) drops? on CPU", open("err").read(), re.M))
if mine != 20000 or records + dropped < 20000:
    sys.exit("%d lines of the program, %d records, %d dropped" % (mine, records, dropped))
EOF_PY
