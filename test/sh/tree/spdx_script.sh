#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/spdx.sh on a scratch tree with one file of each kind: each gets
# "SPDX-License-Identifier: MIT" in its language's comment, after a "#!"
# line or a D test's @dtrace-opts line, never in a file that takes none;
# the files still work (C compiles, shell and make parse, the D script runs
# with its options, the man page renders without warnings); --check lists
# what lacks the tag (exit 1) and passes after; a second run changes
# nothing; a tag naming another licence is left alone.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
SPDX=$TESTDIR/../scripts/spdx.sh

mkdir -p t/man t/src t/test && cd t || exit 1
printf 'int main(void) { return 0; }\n' >src/a.c
printf '#define X 1\n' >src/a.h
printf '#!/bin/sh\necho ok\n' >src/run.sh
printf 'echo sourced\n' >src/lib.sh
printf 'all:\n\t@echo made\n' >Makefile
printf '#!/usr/bin/env python3\nprint("ok")\n' >src/tool.py
printf '/* @dtrace-opts: -q */\nBEGIN { printf("%%d\\n", 7); exit(0); }\n' >test/tst.opts.d
printf '#!/usr/sbin/dtrace -s\nBEGIN { exit(0); }\n' >test/interp.d
printf '.TH X 7 2026-01-01 x x\n.SH NAME\nx \\- y\n.SH DESCRIPTION\nText.\n' >man/x.7
printf '# notes\n' >README.md
printf 'expected\n' >test/tst.opts.d.out
printf '/* SPDX-License-Identifier: BSD-2-Clause */\nint b;\n' >src/other.c
chmod +x src/run.sh

"$SPDX" --check . >missing 2>err; rc=$?
[ $rc = 1 ] || fail "--check exit status $rc on an untagged tree"
sort missing >got
printf '%s\n' Makefile man/x.7 src/a.c src/a.h src/lib.sh src/run.sh \
	src/tool.py test/interp.d test/tst.opts.d | sort >exp
diff exp got || fail "--check lists"
grep -q '^spdx.sh: 9 files lack' err || fail "--check message: $(cat err)"

"$SPDX" . || fail "spdx.sh"
C='/* SPDX-License-Identifier: MIT */' H='# SPDX-License-Identifier: MIT'
# FILE LINE WANTED: what each file holds on that line now.
while IFS='|' read -r f n want; do
	got=$(sed -n "${n}p" "$f")
	[ "$got" = "$want" ] || fail "$f line $n: '$got', wanted '$want'"
done <<LINES
src/a.c|1|$C
src/a.h|1|$C
src/run.sh|1|#!/bin/sh
src/run.sh|2|$H
src/lib.sh|1|$H
Makefile|1|$H
src/tool.py|2|$H
test/tst.opts.d|1|/* @dtrace-opts: -q */
test/tst.opts.d|2|$C
test/interp.d|1|#!/usr/sbin/dtrace -s
test/interp.d|2|$C
man/x.7|1|.\\" SPDX-License-Identifier: MIT
src/other.c|1|/* SPDX-License-Identifier: BSD-2-Clause */
LINES
[ "$(cat README.md)" = '# notes' ] || fail "README.md changed"
[ "$(cat test/tst.opts.d.out)" = expected ] || fail "expected output changed"
[ "$(wc -l <src/other.c)" = 2 ] || fail "another licence's tag was touched"
[ -x src/run.sh ] || fail "run.sh lost its mode"

cc -c -o a.o src/a.c || fail "tagged C"
[ "$(sh src/run.sh)" = ok ] || fail "tagged shell"
[ "$(make -s)" = made ] || fail "tagged Makefile"
[ "$("$DTRACE" $(sed -n '1s|/\* @dtrace-opts:\(.*\)\*/|\1|p' test/tst.opts.d) \
	-s test/tst.opts.d 2>&1)" = 7 ] || fail "tagged D script"
if command -v man >/dev/null; then
	LC_ALL=C.UTF-8 man --warnings -l man/x.7 >/dev/null 2>err || fail "man"
	[ -s err ] && { fail "tagged man page warns"; cat err; }
fi

"$SPDX" --check . >missing 2>&1 || { fail "--check after tagging"; cat missing; }
find . -type f ! -name '*.o' -exec md5sum {} + | sort >../before
"$SPDX" . || fail "second run"
find . -type f ! -name '*.o' -exec md5sum {} + | sort >../after
diff ../before ../after >/dev/null || fail "a second run changed files"

exit $status
