#!/bin/bash
# SPDX-License-Identifier: MIT
# -x help lists every option with a line of help, the engine's as the
# plugins' (the engine's used to be bare names).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
"$DTRACE" -x help >out 2>err || { echo "-x help failed:"; cat err; exit 1; }
bare=$(awk '/^Options \(-x name/ { engine = 1; next }
	    /^Options of the provider plugins/ { engine = 0; next }
	    engine && NF < 2 { print $1 }' out)
[ -z "$bare" ] || { echo "options without help:"; echo "$bare"; exit 1; }
grep -Eq '^  bufsize +bytes of the output buffer \(-b\)$' out ||
	{ echo "bufsize's line:"; grep bufsize out; exit 1; }
grep -Eq '^  syscall\.mode +' out || { echo "no plugin option listed"; exit 1; }
