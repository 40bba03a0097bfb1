#!/bin/bash
# SPDX-License-Identifier: MIT
# A dtrace given file capabilities, as for tracing without root, runs with
# more privilege than the user who starts it: that user must not choose the
# code it runs.  A copy of dtrace with capabilities, in root's directory
# with its plugins beside it, run by a throwaway user with
# DTRACE_PLUGIN_PATH and -x plugindir naming the user's own directory:
# the user's evil.so (test/plugins/evil.c, whose constructor creates a
# marker file) is not loaded, a message says that each was ignored, and
# the plugins beside the executable, root's, still load (dtrace -l lists
# dtrace:::BEGIN).  setcap is Debian's libcap2-bin.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
command -v cc >/dev/null || { echo "no cc"; exit 77; }
command -v setcap >/dev/null || { echo "no setcap (libcap2-bin)"; exit 77; }
. "$TESTDIR/sh/lib/user_lib.sh"
throwaway_user

mkdir -p cap
cp "$DTRACE" cap/dtrace && cp -r "$B/plugins" cap/plugins || exit 1
setcap cap_bpf,cap_perfmon,cap_sys_ptrace+ep cap/dtrace 2>setcap.err || {
	echo "cannot set file capabilities here:"; cat setcap.err; exit 77; }
user=$(user_dir user) || exit 1
cc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$TESTDIR/../include" \
	-o "$user/evil.so" "$TESTDIR/plugins/evil.c" || exit 1
chown "$TUSER" "$user/evil.so"

as_user env EVIL_MARKER="$user/evil.marker" DTRACE_PLUGIN_PATH="$user" \
	"$PWD/cap/dtrace" -x plugindir="$user" -l -n 'dtrace:::BEGIN' >out 2>err
why="dtrace runs with more privilege than its user (setuid or file capabilities)"
if [ -e "$user/evil.marker" ]; then
	echo "the user's plugin ran in the privileged dtrace"; status=1
fi
for msg in "dtrace: DTRACE_PLUGIN_PATH ignored: $why" \
	   "dtrace: -x plugindir=$user ignored: $why"; do
	grep -qxF "$msg" err || { echo "no message: $msg"; status=1; }
done
if ! grep -q ' dtrace .*BEGIN$' out; then
	echo "root's plugins beside the executable did not load:"; status=1
fi
[ $status = 0 ] || { cat out err; }
exit $status
