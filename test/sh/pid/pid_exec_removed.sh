#!/bin/bash
# SPDX-License-Identifier: MIT
# A target's pid probes are removed with its image, as in DTrace: once it
# execs another program, which maps the same libc and has a function of
# the same name as the probed one, nothing fires there any more, and no
# probe of the new image is made.  A plain fork keeps the parent's probes,
# and a -c command run through the shell is traced as the shell: what the
# shell execs is not.  The new program calls its functions only once
# dtrace's -x debug said that the old probes are removed (it waits for
# the file "go"), so that what is asserted does not depend on timing.
# The old image's uprobes go too: the new program reads its own libc's
# usleep, where one would show as a breakpoint (0xcc), and calls it.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc

cat >first.c <<'SRC'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) int work(int x) { return x + 1; }
int main(int argc, char **argv)
{
	for (int i = 0; i < 3; i++)
		usleep(1);
	printf("first %d\n", work(1));
	fflush(stdout);
	if (argc > 2) {		/* fork: the child execs, the parent goes on */
		pid_t child = fork();
		if (child == 0)
			execl(argv[1], argv[1], (char *)NULL);
		waitpid(child, NULL, 0);
		usleep(1);
		return work(0) - 1;
	}
	execl(argv[1], argv[1], (char *)NULL);
	return 1;
}
SRC
cat >second.c <<'SRC'
#include <stdio.h>
#include <time.h>
#include <unistd.h>
__attribute__((noinline)) int work(int x) { return x + 2; }
int main(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	const unsigned char *code = (const unsigned char *)(void *)usleep;
	int traps = 0;

	while (access("go", F_OK) != 0)
		nanosleep(&ts, NULL);
	for (int i = 0; i < 16; i++)
		traps += code[i] == 0xcc;
	printf("second: %d breakpoints in usleep\n", traps);
	for (int i = 0; i < 5; i++)
		usleep(1);
	printf("second %d\n", work(1));
	return 0;
}
SRC
cc -O1 -o first first.c && cc -O1 -o second second.c || exit 1

D='pid$target:libc.so.6:usleep:entry { @n = count(); }
pid$target:a.out:work:return { printf("%s returned %d\n", probefunc, arg1); }
END { printa("usleep %@d\n", @n); }'

# run_paced CMD: dtrace -c CMD in the background, "go" once it removed
# the probes of the exec'ing target
run_paced() {
	rm -f go
	timeout 60 "$DTRACE" -q -x debug -c "$1" -n "$D" >out 2>err &
	local dt=$!
	wait_line err "exec'ed: its probes are removed" 600
	touch go
	wait $dt
	rc=$?
}

run_paced "./first ./second"
expected='work returned 2
usleep 3'
got=$(grep -v -e '^first ' -e '^second[ :]' -e '^$' out)
[ $rc = 0 ] && [ "$got" = "$expected" ] && grep -qx 'second 3' out ||
	fail_run "exec: the new program's calls were seen" "$expected"
grep -qx 'second: 0 breakpoints in usleep' out ||
	fail_run "exec: the old image's uprobe is still in libc" \
		"second: 0 breakpoints in usleep"

# the new program has its own work(): no probe of it is made
timeout 60 "$DTRACE" -l -n 'pid$target:a.out:work:return' \
	-c "./first ./second" >out 2>err
rc=$?
[ $rc = 0 ] && [ "$(awk 'NR > 1 { print $4, $5 }' out)" = "work return" ] ||
	fail_run "-l: one probe, first's" "work return"

# a plain fork: the parent's probes go on; the child is not traced
touch go
timeout 60 "$DTRACE" -q -c "./first ./second fork" -n "$D" >out 2>err
rc=$?
expected='work returned 2
work returned 1
usleep 4'
got=$(grep -v -e '^first ' -e '^second[ :]' -e '^$' out)
[ $rc = 0 ] && [ "$got" = "$expected" ] ||
	fail_run "fork: the parent's probes" "$expected"

# through the shell: the target is the shell, whose exec ends its probes
printf 'exec ./second\n' >run.sh
D='pid$target:libc.so.6:usleep:entry { @n = count(); }
END { printa("usleep %@d\n", @n); printf("end\n"); }'
run_paced "/bin/sh ./run.sh"
[ $rc = 0 ] && [ "$(grep -v -e '^second[ :]' -e '^$' out)" = end ] ||
	fail_run "/bin/sh: what the shell exec'ed was seen" end
exit $status
