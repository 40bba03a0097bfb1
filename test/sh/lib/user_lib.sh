# SPDX-License-Identifier: MIT
# user_lib.sh: sourced by the shell tests that play an unprivileged user
# against root's session.  `throwaway_user` creates a user of its own for
# the test (no password, no login shell, a home in the test's scratch
# directory) and removes it, with every process it still runs, when the
# test's shell exits; `as_user CMD...` runs a command as that user.
#
# The user is made fresh rather than borrowed (nobody) so that a test
# leaves nothing behind and meets no other test's processes under the
# same uid.  useradd is from Debian's passwd package, always installed.

# throwaway_user: sets TUSER and TUID, or exits 77 (skip) when no user can
# be made.  Installs an EXIT trap that removes it; a test that sets its own
# EXIT trap calls remove_throwaway_user from it.
throwaway_user() {
	command -v useradd >/dev/null && command -v runuser >/dev/null ||
		{ echo "no useradd or runuser"; exit 77; }
	remove_orphaned_users
	TUSER=dtt$$_$RANDOM
	TUSER=${TUSER:0:31}
	useradd --no-create-home --home-dir "$PWD" --shell /usr/sbin/nologin \
		--no-user-group --gid nogroup "$TUSER" 2>/dev/null ||
		{ echo "cannot create a throwaway user"; exit 77; }
	TUID=$(id -u "$TUSER")
	# the runner's timeout ends a test with SIGTERM: exit, so that the
	# EXIT trap still removes the user
	trap remove_throwaway_user EXIT
	trap 'exit 143' TERM INT HUP
}

# remove_orphaned_users: the users of tests that were killed before their
# EXIT trap ran (SIGKILL), known by the pid in their name (dttPID_N) that
# no longer runs.
remove_orphaned_users() {
	local u pid
	for u in $(awk -F: '/^dtt[0-9]+_[0-9]+:/ { print $1 }' /etc/passwd); do
		pid=${u#dtt}; pid=${pid%%_*}
		kill -0 "$pid" 2>/dev/null && continue
		pkill -KILL -u "$u" 2>/dev/null
		userdel "$u" 2>/dev/null
	done
}

# remove_throwaway_user: ends the user's processes, then removes the user.
remove_throwaway_user() {
	[ -n "${TUSER:-}" ] || return 0
	pkill -KILL -u "$TUID" 2>/dev/null
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		pgrep -u "$TUID" >/dev/null || break
		sleep 0.1
	done
	userdel "$TUSER" 2>/dev/null
	TUSER=
}

# user_dir NAME: makes ./NAME, owned by the throwaway user, and prints its
# absolute path.  The scratch directory and its parents are left as they
# are, save for the search bit the user needs to reach NAME.
user_dir() {
	mkdir -p "$1" && chown "$TUSER" "$1" && chmod 755 "$1" || return 1
	local d=$PWD
	while [ "$d" != / ]; do chmod o+x "$d" 2>/dev/null; d=$(dirname "$d"); done
	echo "$PWD/$1"
}

# as_user CMD...: runs CMD as the throwaway user, in the current directory.
as_user() {
	runuser -u "$TUSER" -- "$@"
}
