#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# A registration with dtprobed affects only the probes of the process that
# sent it.  A non-root process that maps a file with <sys/sdt.h> notes and
# no declarations of its own (as anybody can map /usr/bin/python3.11)
# registers a declaration of one of its probes with another argument type;
# root's session sees that type on the registering process's own probe
# only: the probes of root's process, and the probe of the processes not
# seen yet, keep the types of the notes.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/daemon_lib.sh"
need_dtrace
need_sdt
[ -x /usr/bin/python3 ] && command -v setpriv >/dev/null ||
	{ echo "no /usr/bin/python3 or setpriv"; exit 77; }
# The file, the sender and the socket where the other user reaches them.
P=$(mktemp -d /tmp/dtprobed-own.XXXXXX) && chmod 755 "$P" || exit 1
trap 'daemon_cleanup; rm -rf "$P"' EXIT
export DTPROBED_SOCKET=$P/sock
gcc -O2 -o "$P/sdt_args" "$TESTDIR/progs/sdt_args.c" || exit 1
cp "$TESTDIR/usdt/dtp_send.py" "$P/dtp_send.py"
start_daemon

bg "$P/sdt_args" 0 100 >/dev/null; mine=$!
bg setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 \
	"$P/dtp_send.py" "$DTPROBED_SOCKET" map "$P/sdt_args" sdt_test string \
	'struct hostile *' >sent
wait_for 5 grep -q registered sent || fail "the sender did not register"
other=$(pgrep -u 65534 -f "dtp_send.py $DTPROBED_SOCKET map") ||
	fail "no sender process"
wait_for 3 test -f "state/$other" || { cat dtprobed.log; fail "not registered"; }

"$DTRACE" -l -v -n 'sdt_test*:::string' >lv 2>err || { cat err; fail "dtrace -l"; }
# "PROVIDER TYPE" for each probe listed.
types=$(awk '$2 ~ /^sdt_test/ { prv = $2 } /args\[0\]:/ { sub(/.*args\[0\]: /, ""); print prv, $0 }' lv)
echo "$types" | grep -qx "sdt_test$other struct hostile \*" ||
	{ fail "the sender's own probe lacks its declaration"; echo "$types"; }
# The notes' type: what the probe of processes not seen yet shows.
note=$(echo "$types" | sed -n 's/^sdt_test //p')
[ -n "$note" ] && [ "$note" != "struct hostile *" ] ||
	{ fail "the probe of processes not seen yet"; echo "$types"; }
echo "$types" | grep -qx "sdt_test$mine $note" ||
	{ fail "root's process's probe"; echo "$types"; }
[ "$(echo "$types" | grep -c hostile)" = 1 ] ||
	{ fail "the declaration leaked"; echo "$types"; }
exit $status
