#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# A registration with dtprobed affects only the probes of the process that
# sent it, and another user's does not change how root's script compiles.
# A process of a throwaway user maps a file with <sys/sdt.h> notes and no
# declarations of its own (as anybody can map /usr/bin/python3.11) and
# registers a declaration of one of its probes with another argument type
# (struct hostile *).  Root's session takes the notes' types for every
# probe, the sender's own included: root's glob clause on args[0] over
# every process's probe compiles, where it once failed with "args[0] has
# type unsigned long ... but struct hostile *".  The same registration
# sent by root gives its process's own probe the declared type
# (dtprobed_answer.sh); the probes of root's process, and the probe of the
# processes not seen yet, keep the notes' types.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/daemon_lib.sh"
. "$TESTDIR/sh/lib/user_lib.sh"
need_dtrace
need_sdt
[ -x /usr/bin/python3 ] || { echo "no /usr/bin/python3"; exit 77; }
daemon_user
gcc -O2 -o "$U/sdt_args" "$TESTDIR/progs/sdt_args.c" || exit 1
chmod 755 "$U/sdt_args"
cp "$TESTDIR/usdt/dtp_send.py" "$U/dtp_send.py"
start_daemon

bg "$U/sdt_args" 0 100 >/dev/null; mine=$!
bg as_user /usr/bin/python3 "$U/dtp_send.py" "$DTPROBED_SOCKET" map \
	"$U/sdt_args" sdt_test string 'struct hostile *' >sent
wait_for 5 grep -q registered sent || fail "the sender did not register"
other=$(pgrep -u "$TUID" -f "dtp_send.py $DTPROBED_SOCKET map") ||
	fail "no sender process"
wait_for 3 test -f "state/$other" || { cat dtprobed.log; fail "not registered"; }

"$DTRACE" -l -v -n 'sdt_test*:::string' >lv 2>err || { cat err; fail "dtrace -l"; }
# "PROVIDER TYPE" for each probe listed.
types=$(awk '$2 ~ /^sdt_test/ { prv = $2 } /args\[0\]:/ { sub(/.*args\[0\]: /, ""); print prv, $0 }' lv)
note=$(echo "$types" | sed -n 's/^sdt_test //p')
[ -n "$note" ] && [ "$note" != "struct hostile *" ] ||
	{ fail "the probe of processes not seen yet"; echo "$types"; }
echo "$types" | grep -qx "sdt_test$mine $note" ||
	{ fail "root's process's probe"; echo "$types"; }
echo "$types" | grep -qx "sdt_test$other $note" ||
	{ fail "the other user's declaration typed its probe"; echo "$types"; }
echo "$types" | grep -q hostile &&
	{ fail "the declaration leaked"; echo "$types"; }

# Root's glob over every process's probe, args[] included, compiles.
"$DTRACE" -e -q -n 'sdt_test*:::string { trace(args[0]); }' >glob 2>&1 ||
	{ cat glob; fail "root's glob clause on args[0] did not compile"; }
exit $status
