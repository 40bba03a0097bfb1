#!/bin/bash
# SPDX-License-Identifier: MIT
# A plugin runs its constructors with root's privilege as soon as it is
# mapped, so root's dtrace loads only plugins that nobody but root could
# have put there.  evil.so (test/plugins/evil.c) creates a marker file from
# its constructor.  Refused with a message naming the file or directory and
# its owner, its marker never made, and BEGIN still served by the other
# plugins: a directory another user owns, named by DTRACE_PLUGIN_PATH and
# by -x plugindir; a file another user owns in root's directory, and a
# link in root's directory to it; a root-owned file every user may write;
# a root-owned file group nogroup may write; a root-owned directory every
# user may write.  From root's own directory it loads (its marker made),
# also when root's own group (gid 0, no members) may write it and its
# directory, and from plugins/ beside a dtrace that the user owns (a tree
# built as the user and run with sudo: its code runs already).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
command -v cc >/dev/null || { echo "no cc"; exit 77; }
. "$TESTDIR/sh/lib/user_lib.sh"
throwaway_user
HERE=$(pwd -P)
NOT_ROOT="is owned by $TUSER (uid $TUID), not by root"

# Its constructor creates the file $EVIL_MARKER.
cc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$TESTDIR/../include" \
	-o evil.so "$TESTDIR/plugins/evil.c" || exit 1
# build_evil DIR: DIR/evil.so, root's, mode 755.
build_evil() {
	install -m 755 evil.so "$1/evil.so" || exit 1
}

# refused WHAT DIR MESSAGE DTRACE-ARGS...: the BEGIN clause runs, stderr
# is the one message, and no DIR/evil.marker was made.
refused() {
	local what=$1 dir=$2 msg=$3 out
	shift 3
	rm -f "$dir/evil.marker"
	out=$(EVIL_MARKER=$dir/evil.marker "$@" -q \
		-n 'BEGIN { printf("begin\n"); exit(0); }' 2>err)
	if [ "$out" != begin ] || [ "$(cat err)" != "$msg" ] ||
	   [ -e "$dir/evil.marker" ]; then
		echo "$what: got '$out', marker: $(ls "$dir/evil.marker" 2>&1)"
		echo "want: $msg"; cat err; status=1
	fi
}

user=$(user_dir user) || exit 1
build_evil "$user"
chown "$TUSER" "$user/evil.so"
refused "DTRACE_PLUGIN_PATH of another user" "$user" \
	"dtrace: plugin directory $user: directory $HERE/user $NOT_ROOT: its plugins are not loaded" \
	env DTRACE_PLUGIN_PATH="$user:$B/plugins" "$DTRACE"
refused "-x plugindir of another user" "$user" \
	"dtrace: plugin directory $user: directory $HERE/user $NOT_ROOT: its plugins are not loaded" \
	"$DTRACE" -x plugindir="$user"

mkdir -p owned linked
ln -s "$user/evil.so" linked/evil.so
refused "a link to another user's file" "$user" \
	"dtrace: plugin $PWD/linked/evil.so: file $HERE/user/evil.so $NOT_ROOT: not loaded" \
	"$DTRACE" -x plugindir="$PWD/linked"
build_evil "$PWD/owned"
chown "$TUSER" owned/evil.so
refused "a file of another user" "$PWD/owned" \
	"dtrace: plugin $PWD/owned/evil.so: file $HERE/owned/evil.so $NOT_ROOT: not loaded" \
	"$DTRACE" -x plugindir="$PWD/owned"

mkdir -p filew groupw dirw
build_evil "$PWD/filew"
chmod 666 filew/evil.so
refused "a file every user may write" "$PWD/filew" \
	"dtrace: plugin $PWD/filew/evil.so: file $HERE/filew/evil.so, owned by root (uid 0), is writable by every user (mode 0666): not loaded" \
	"$DTRACE" -x plugindir="$PWD/filew"
build_evil "$PWD/groupw"
chgrp nogroup groupw/evil.so && chmod 775 groupw/evil.so
refused "a file group nogroup may write" "$PWD/groupw" \
	"dtrace: plugin $PWD/groupw/evil.so: file $HERE/groupw/evil.so, owned by root (uid 0), is writable by its group (mode 0775): not loaded" \
	"$DTRACE" -x plugindir="$PWD/groupw"
build_evil "$PWD/dirw"
chmod 777 dirw
refused "a directory every user may write" "$PWD/dirw" \
	"dtrace: plugin directory $PWD/dirw: directory $HERE/dirw, owned by root (uid 0), is writable by every user (mode 0777): its plugins are not loaded" \
	"$DTRACE" -x plugindir="$PWD/dirw"

# root's own directories: loaded, its constructor ran
mkdir -p mine rootgroup
build_evil "$PWD/mine"
build_evil "$PWD/rootgroup"
chgrp 0 rootgroup rootgroup/evil.so && chmod 775 rootgroup rootgroup/evil.so
# (root's group must list no members to be root's private group)
dirs="mine rootgroup"
[ -z "$(getent group 0 | cut -d: -f4)" ] || dirs=mine
for d in $dirs; do
	out=$(EVIL_MARKER=$PWD/$d/evil.marker "$DTRACE" -q \
		-x plugindir="$PWD/$d" \
		-n 'BEGIN { printf("begin\n"); exit(0); }' 2>err)
	if [ "$out" != begin ] || [ -s err ] || [ ! -e $d/evil.marker ]; then
		echo "root's own plugin in $d: got '$out', marker:" \
			"$(ls $d 2>&1)"
		cat err; status=1
	fi
done

# a dtrace the user owns, its plugins beside it the user's: loaded
built=$(user_dir built) || exit 1
cp "$DTRACE" "$built/dtrace" && cp -r "$B/plugins" "$built/plugins" || exit 1
build_evil "$built/plugins"
chown -R "$TUSER" "$built"
out=$(env -u DTRACE_PLUGIN_PATH EVIL_MARKER="$built/plugins/evil.marker" \
	"$built/dtrace" -q \
	-n 'BEGIN { printf("begin\n"); exit(0); }' 2>err)
if [ "$out" != begin ] || [ -s err ] || [ ! -e "$built/plugins/evil.marker" ]
then
	echo "plugins beside the user's dtrace: got '$out', marker:" \
		"$(ls "$built/plugins" 2>&1)"
	cat err; status=1
fi
exit $status
