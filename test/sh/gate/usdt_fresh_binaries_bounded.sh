#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# @timeout: 90
# A user who makes fresh programs with USDT notes (a build, a CI runner, or
# someone who means harm) costs root's session on other probes neither
# descriptors nor memory that grow with them, and does not blind it.
#
# Root traces rootonly*:::tick, which no program of the user's matches,
# with dtrace under a hard limit of 512 descriptors (a service's or a
# container's limit; the flood below would take any limit in time, as each
# file cost a descriptor: 20,000 of them after 240 s of it).  The user
# copies a small program with a flood:::tick note to 400 fresh files (new
# inodes, which the exec gate hands to dtrace) and runs each.  Root's own
# program, a fresh copy too, runs during the flood and after it.  Checked:
#   - every firing of root's two programs is seen (before, the second one
#     went untraced without a word once the descriptors ran out);
#   - dtrace's descriptors grow by at most 24 over the 400 programs
#     (measured: 4, the uprobe links of root's two programs; before, one
#     more per program until none was left);
#   - its resident memory grows by at most 3 MB (the bounded tables of
#     files it has no use for: usdt's set of identities, some 160 KB, the
#     gate's, 512 KB at most, the loader model's parse cache, and malloc's
#     slack; measured 0.3 MB after the fix, 1.0 MB in the sanitizer build
#     without its quarantine, and 7.3 MB and 12 MB before);
#   - nothing on stderr says that probes went untraced.
# Then -x usdtfiles: with room for two files, five fresh programs whose
# notes match: the first two are traced, dtrace names the third once and
# counts the three it left out when it ends.  Each fires 5 times over
# 80 ms, so that a program the gate could not hold on a loaded machine
# (the exec watch places its probes a few ms late) still shows.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt
. "$TESTDIR/sh/lib/user_lib.sh"
N=400
FD_LIMIT=512
FD_GROWTH_MAX=24
RSS_GROWTH_MAX_KB=3072

cat >prog.c <<'C'
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	struct timespec ts = { 0, 20 * 1000000 };
	for (int i = 0; i < n; i++) {
		if (i > 0)
			nanosleep(&ts, NULL);
		DTRACE_PROBE(flood, tick);
	}
	return 0;
}
C
cat >mine.c <<'C'
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	struct timespec ts = { 0, 20 * 1000000 };
	for (int i = 0; i < n; i++) {
		DTRACE_PROBE1(rootonly, tick, i);
		nanosleep(&ts, NULL);
	}
	return 0;
}
C
cat >flood.c <<'C'
/* flood PROG DIR FIRST LAST: copies PROG to DIR/fN (a new inode each) and
 * runs it, one after the other, for N from FIRST to LAST. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
int main(int argc, char **argv)
{
	int first = atoi(argv[3]), last = atoi(argv[4]);
	for (int i = first; i <= last; i++) {
		char path[4096];
		struct stat sb;
		snprintf(path, sizeof(path), "%s/f%d", argv[2], i);
		int in = open(argv[1], O_RDONLY), out;
		if (in < 0 || fstat(in, &sb) != 0 ||
		    (out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755)) < 0 ||
		    sendfile(out, in, NULL, sb.st_size) != sb.st_size) {
			perror(path);
			return 1;
		}
		close(in);
		close(out);
		char *args[] = { path, NULL };
		pid_t pid;
		int ws;
		if (posix_spawn(&pid, path, NULL, NULL, args, environ) != 0 ||
		    waitpid(pid, &ws, 0) != pid) {
			perror(path);
			return 1;
		}
	}
	return 0;
}
C
gcc -O2 -o prog prog.c && gcc -O2 -o mine mine.c &&
	gcc -O2 -o flood flood.c || exit 1
throwaway_user
# A test ended by its timeout leaves no session behind (its exec gate
# would hold the machine's execs).
dt=
trap 'exit 1' TERM INT
trap '[ -n "$dt" ] && kill -KILL $dt 2>/dev/null; remove_throwaway_user' EXIT
U=$(user_dir u) || exit 1
cp prog flood "$U/" && chmod 755 "$U/prog" "$U/flood" || exit 1

# AddressSanitizer holds freed memory back (its quarantine) to catch uses
# after free: that would be counted as growth.
[ "${DT_SANITIZED:-0}" = 1 ] &&
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0"

# start_dtrace ARGS...: dtrace under the descriptor limit, its pid in dt,
# once it printed "ready".
start_dtrace() {
	(ulimit -n $FD_LIMIT && exec "$DTRACE" "$@") >out 2>err &
	dt=$!
	for _ in $(seq 150); do grep -q ready out 2>/dev/null && break; sleep 0.1; done
	grep -q ready out || { cat err; kill $dt 2>/dev/null; fail "dtrace did not start"; exit 1; }
}
# stop_dtrace: Ctrl-C, and at most 20 s for dtrace to end (before the fix,
# out of descriptors, it did not).
stop_dtrace() {
	kill -INT $dt
	for _ in $(seq 200); do kill -0 $dt 2>/dev/null || break; sleep 0.1; done
	if kill -0 $dt 2>/dev/null; then
		fail "dtrace did not end on SIGINT"
		kill -KILL $dt
	fi
	wait $dt
}
fds() { ls /proc/$dt/fd 2>/dev/null | wc -l; }
rss_kb() { awk '/^VmRSS/ { print $2 }' /proc/$dt/status 2>/dev/null; }
flood() { as_user "$U/flood" "$U/prog" "$U" "$@"; }
# mine NAME: root's own program, a fresh copy, fires rootonly:::tick 5 times.
mine() { cp mine "$1" || exit 1; ./"$1" 5 & }

start_dtrace -Z -q -n 'BEGIN { printf("ready\n"); }
rootonly*:::tick { printf("tick %d %d\n", pid, arg0); }'
flood 1 20 || fail "the flood failed"	# the tables' first growth
fd0=$(fds) rss0=$(rss_kb)
flood 21 $((N / 4)) || fail "the flood failed"
mine mine1; m1=$!
flood $((N / 4 + 1)) $((N + 20)) || fail "the flood failed"
wait $m1
mine mine2; m2=$!
wait $m2
fd1=$(fds) rss1=$(rss_kb)
stop_dtrace

echo "$N fresh programs: descriptors $fd0 -> $fd1, RSS $rss0 -> $rss1 KB"
for p in $m1 $m2; do
	for i in 0 1 2 3 4; do
		grep -qx "tick $p $i" out ||
			fail "root's program $p: firing $i not seen"
	done
done
[ -n "$fd1" ] && [ $((fd1 - fd0)) -le $FD_GROWTH_MAX ] ||
	fail "descriptors grew from $fd0 to $fd1 over $N fresh programs"
[ -n "$rss1" ] && [ $((rss1 - rss0)) -le $RSS_GROWTH_MAX_KB ] ||
	fail "RSS grew from $rss0 to $rss1 KB over $N fresh programs"
grep -i "not traced\|cannot read" err && fail "a drop claimed, none happened"
[ $status = 0 ] || { echo "--- out"; head -20 out; echo "--- err"; cat err; }

# -x usdtfiles=2: programs whose notes match, past the bound.
start_dtrace -x usdtfiles=2 -Z -q -n 'BEGIN { printf("ready\n"); }
flood*:::tick { printf("flood %s\n", execname); }'
for i in 1 2 3 4 5; do cp prog "lim$i" && ./"lim$i" 5 || fail "lim$i"; done
stop_dtrace
for i in 1 2; do grep -qx "flood lim$i" out || fail "lim$i not traced"; done
for i in 3 4 5; do grep -qx "flood lim$i" out && fail "lim$i traced past the bound"; done
[ "$(grep -c 'lim3 has USDT probes that are not traced: 2 files with USDT probes are kept already, as many as they may (-x usdtfiles)' err)" = 1 ] ||
	fail "the first file past the bound was not named once"
grep -q "^dtrace: 3 files with USDT probes not traced: more than 2 (-x usdtfiles)$" err ||
	fail "no count of the files past the bound"
[ "$(grep -c 'not traced' err)" = 2 ] || fail "more than two words of the bound"
[ $status = 0 ] || { echo "--- out"; cat out; echo "--- err"; cat err; }
exit $status
