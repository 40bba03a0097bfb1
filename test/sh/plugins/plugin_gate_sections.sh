#!/bin/bash
# SPDX-License-Identifier: MIT
# The exec gate asks the plugins which files matter: a plugin that names
# its own ELF section (.note.dtgatetest) is shown the files of a program
# that carries one, when it execs, and not those of one without.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc

stage_install
mkdir -p p
cc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$PWD/stage/usr/local/include" \
	-o p/gatetest.so "$TESTDIR/plugins/gatetest.c" || exit 1
cat >marked.c <<'C'
__attribute__((used, section(".note.dtgatetest")))
static const char mark[8] = "dtgate";
int main(void) { return 0; }
C
cc -O1 -o marked marked.c && cc -O1 -o plain -x c - <<<'int main(void){return 0;}' ||
	exit 1

"$DTRACE" -q -x plugindir="$PWD/p" -n '
BEGIN { printf("ready\n"); }
gatetest:::shown { printf("shown %d %d\n", arg0, arg1); exit(0); }' \
	>out 2>err &
dt=$!
for _ in $(seq 200); do
	grep -q ready out && break
	sleep 0.05
done
if grep -q "exec gate is not available" err; then
	kill $dt; wait $dt; exit 77
fi
./plain
./marked &
marked=$!
wait $marked
for _ in $(seq 200); do
	kill -0 $dt 2>/dev/null || break
	sleep 0.05
done
kill $dt 2>/dev/null
wait $dt
if [ "$(grep -v ready out | grep .)" != "shown $marked 1" ] || [ -s err ]; then
	echo "expected 'shown $marked 1'"; cat out err; status=1
fi
exit $status
