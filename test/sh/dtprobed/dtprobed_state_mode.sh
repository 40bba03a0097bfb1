#!/bin/bash
# SPDX-License-Identifier: MIT
# dtprobed's state is root's: the directory is 0700 and each file 0600,
# also a directory an older daemon left 0755, so another user cannot read
# the paths, inodes, load addresses and probe sites of root's registered
# programs (they were 0644 in a 0755 directory).  The readers still read
# them: dtrace as root, and dtrace run by another user with CAP_BPF,
# CAP_PERFMON, CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH list the program's
# probes.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
. "$TESTDIR/sh/lib/user_lib.sh"
command -v setpriv >/dev/null || { echo "no setpriv"; exit 77; }
daemon_user
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1
chmod 755 "$W/app"
mkdir -m 755 state
start_daemon
"$W/app" 100 100 >/dev/null & app=$!; bgpids+=("$app")
wait_for 5 test -f "state/$app" || fail "the program did not register"

[ "$(stat -c %a state)" = 700 ] || fail "state directory mode $(stat -c %a state)"
[ "$(stat -c %a "state/$app")" = 600 ] ||
	fail "state file mode $(stat -c %a "state/$app")"
as_user cat "state/$app" >/dev/null 2>&1 && fail "another user reads root's state"

"$DTRACE" -l -n "myapp$app:::tick" >root.list 2>&1
grep -Eq "^ *[0-9]+ +myapp$app " root.list || { cat root.list; fail "root's dtrace -l"; }
caps=+bpf,+perfmon,+sys_ptrace,+dac_read_search
with_caps() {
	setpriv --reuid="$TUID" --regid=nogroup --clear-groups \
		--inh-caps="$caps" --ambient-caps="$caps" "$@"
}
# (dtrace -l finds a running program's probes through /proc too: that the
# reader with capabilities reads the state is seen with cat.)
with_caps cat "state/$app" >cap.state 2>&1 && cmp -s cap.state "state/$app" ||
	{ cat cap.state; fail "a reader with CAP_DAC_READ_SEARCH cannot read the state"; }
with_caps "$DTRACE" -l -n "myapp$app:::tick" >cap.list 2>&1
grep -Eq "^ *[0-9]+ +myapp$app " cap.list ||
	{ cat cap.list; fail "dtrace with capabilities does not list the program"; }
exit $status
