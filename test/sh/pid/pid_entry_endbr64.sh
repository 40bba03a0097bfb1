#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 90
# A function built with gcc -fcf-protection=full begins with endbr64: its
# entry probe goes on the instruction after it (-x debug says so; the
# process's text has the breakpoint there while traced and its own bytes
# again after), and a clause sees what it sees on the endbr64
# (-x pid.entry=classic): the same arguments, uregs[R_PC] and ustack()'s
# first frame (the function's address), ucaller; the offset-0 probe is the
# entry too, the offset-4 probe keeps its pc.  Entry and return probes
# fire once a call; a function whose loop begins after its endbr64 keeps
# its entry on the endbr64 (else it would fire every turn); a child forked
# while traced finishes; a bad value of the option is refused.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd gcc nm python3

cat >cet.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) long f(long a, long b)
{
	__asm__ volatile("");
	return a * 3 + b;
}

/* long spin(long n): endbr64, then a loop whose head is the instruction
 * after it (as a tail call made a loop can be). */
__asm__(".text\n.globl spin\n.type spin, @function\nspin:\n"
	"endbr64\n1: dec %rdi\njg 1b\nxor %eax, %eax\nret\n"
	".size spin, . - spin\n");
long spin(long n);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3, s = 0;
	const char *mode = argc > 2 ? argv[2] : "";
	pid_t c = -1;

	if (strcmp(mode, "wait") == 0) {	/* until the file argv[3] is */
		printf("ready\n");
		fflush(stdout);
		while (access(argv[3], F_OK) != 0) {
			s += f(1, 2) - 5;
			usleep(2000);
		}
		return s == 0 ? 0 : 1;
	}
	for (long i = 0; i < n; i++) {
		if (i == n / 2 && strcmp(mode, "fork") == 0)
			c = fork();
		s += f(i, 2 * i) - 5 * i;
		spin(4);
	}
	printf("done %s\n", c == 0 ? "child" : "parent");
	fflush(stdout);
	if (c > 0)
		waitpid(c, NULL, 0);
	return s == 0 ? 0 : 1;
}
C
gcc -O2 -fcf-protection=full -o cet cet.c || { fail "cannot build cet"; exit 1; }
F=0x$(nm cet | awk '$3 == "f" { print $1 }')
bytes() {
	python3 -c 'import sys
with open(sys.argv[1], "rb") as f:
    f.seek(int(sys.argv[2], 0))
    print(f.read(int(sys.argv[3])).hex())' "$@"
}
[ "$(bytes cet "$F" 4)" = f30f1efa ] ||
	{ fail "f does not begin with endbr64: $(bytes cet "$F" 4)"; exit 1; }

# What a clause sees, past the endbr64 and on it.
for mode in auto classic; do
	"$DTRACE" -x pid.entry=$mode -x debug -q -c "./cet 3" -n '
	pid$target:a.out:f:entry, pid$target:a.out:f:0 {
		printf("%s %d %d %A %A\n", probename, arg0, arg1, uregs[R_PC],
		       ucaller);
		ustack(1);
	}
	pid$target:a.out:f:4 { printf("4 %A\n", uregs[R_PC]); ustack(1); }
	pid$target:a.out:spin:entry { @spin = count(); }
	END { printa("spin %@d\n", @spin); }' >out 2>err ||
		{ cat err; fail "$mode: dtrace failed"; continue; }
	grep -q '^done parent$' out || { cat out err; fail "$mode: cet did not finish"; }
	grep -v '^done' out >seen.$mode
	cp err err.$mode
	case $mode in
	auto) want="placed past the function's endbr64" ;;
	classic) want="placed on the function's endbr64 (pid.entry=classic)" ;;
	esac
	for p in entry 0; do
		grep -qF ":a.out:f:$p: $want" err ||
			{ cat err; fail "$mode: -x debug does not say f:$p is $want"; }
	done
	[ "$(grep -c '^entry ' out)" = 3 ] && [ "$(grep -c '^0 ' out)" = 3 ] &&
	[ "$(grep -c '^4 ' out)" = 3 ] || { cat out; fail "$mode: not 3 firings of each probe"; }
	grep -q '^spin 3$' out || { cat out; fail "$mode: spin:entry did not fire 3 times"; }
done
grep -q "^entry 2 4 cet\`f cet\`main+0x[0-9a-f]*$" seen.auto ||
	{ cat seen.auto; fail "auto: not the arguments, pc and caller of f"; }
grep -q "^4 cet\`f+0x4$" seen.auto || { cat seen.auto; fail "auto: f:4's pc is not f+0x4"; }
cmp -s seen.auto seen.classic ||
	{ diff seen.classic seen.auto; fail "past the endbr64, a clause sees otherwise"; }
grep -q "a.out:spin:entry: placed on the function's endbr64 (classic: the function branches to the instruction after it)" err.auto ||
	fail "-x debug does not say why spin's entry stays on its endbr64"

# Entry and return probes together: once a call each.
"$DTRACE" -q -c "./cet 5" -n 'pid$target:a.out:f:entry { @e = count(); }
	pid$target:a.out:f:return { @r = count(); }
	END { printa("entry %@d\n", @e); printa("return %@d\n", @r); }' \
	>out 2>err || { cat err; fail "entry and return: dtrace failed"; }
grep -q '^entry 5$' out && grep -q '^return 5$' out ||
	{ cat out err; fail "entry and return: not 5 firings each"; }

# A child forked while traced finishes; the probe fires in the target only.
"$DTRACE" -q -c "./cet 6 fork" -n 'pid$target:a.out:f:entry { printf("f %d\n", pid); }' \
	>out 2>err || { cat err; fail "fork: dtrace failed"; }
[ "$(grep -c '^done' out)" = 2 ] || { cat out err; fail "fork: a process did not finish"; }
[ "$(grep -c '^f ' out)" = 6 ] && [ "$(grep '^f ' out | sort -u | wc -l)" = 1 ] ||
	{ cat out err; fail "fork: not 6 firings in the target"; }

# While traced, the breakpoint is on the instruction after the endbr64;
# after, the text is the file's again and the program goes on.
./cet 0 wait stop >app.out & app=$!
wait_line app.out '^ready$' || fail "cet did not start"
base=$(awk -v f="$(readlink -f cet)" '$6 == f && $3 == "00000000" {
	split($1, a, "-"); print a[1]; exit }' /proc/$app/maps)
site=$((0x$base + F))
before=$(bytes /proc/$app/mem $site 5)
"$DTRACE" -q -n 'pid$target:a.out:f:entry { printf("f %d %d\n", arg0, arg1); }' \
	-p $app >out 2>err & dt=$!
wait_line out '^f 1 2$' || { cat err; fail "no firing of f in the running process"; }
traced=$(bytes /proc/$app/mem $site 5)
[ "$traced" = "${before:0:8}cc" ] ||
	fail "while traced, f is $traced, not $before with a breakpoint after its endbr64"
kill -INT $dt; wait $dt
[ "$(bytes /proc/$app/mem $site 5)" = "$before" ] ||
	fail "after tracing, f is $(bytes /proc/$app/mem $site 5), not $before"
touch stop
wait $app || fail "the traced program failed after tracing"

"$DTRACE" -x pid.entry=bogus -n 'BEGIN { exit(0); }' >out 2>err &&
	fail "a bad pid.entry was taken"
grep -qx 'dtrace: pid: -x pid.entry=bogus: expected auto or classic' err ||
	{ cat err; fail "a bad pid.entry is not refused by name"; }
exit $status
