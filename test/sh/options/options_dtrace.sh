#!/bin/bash
# SPDX-License-Identifier: MIT
# DTrace's options droptags, setenv/unsetenv, cpphdrs, cppargs,
# syslibdir, empty, core, evaltime and bufpolicy=fill's END room do what
# they say (the others: options_refused.sh).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

. "$TESTDIR/sh/lib/status_lib.sh"

# droptags: a drop message starts with DTrace's name of its kind
"$DTRACE" -q -x droptags -x dynvarsize=64 -n 'BEGIN { a[1] = 1; a[2] = 2;
	a[3] = 3; a[4] = 4; a[5] = 5; exit(0); }' >out 2>err
check droptags 0 $?
has droptags err "^dtrace: \[DTRACEDROP_DYNAMIC\] 1 dynamic variable drop$"

# bufpolicy=fill keeps END's records' room: when they do not fit (three
# of 32 bytes in 64), tracing does not start (test/d/buf: fill and ring)
"$DTRACE" -q -b 64 -x bufpolicy=fill -n 'END { printf("%d\n", 1); }
	END { printf("%d\n", 2); } END { printf("%d\n", 3); }' >out 2>err
check fill-end 1 $?
has fill-end err "^dtrace: could not enable tracing: END enablings exceed size of principal buffer$"
"$DTRACE" -q -b 96 -x bufpolicy=fill -n 'BEGIN { exit(0); }
	END { printf("%d\n", 1); } END { printf("%d\n", 2); }
	END { printf("%d\n", 3); }' >out 2>err
check fill-end-fits 0 $?
has fill-end-fits out "^3$"
"$DTRACE" -x bufpolicy=wrap -n BEGIN >out 2>err; check bufpolicy-bad 1 $?

# evaltime: a -c process stops right after its exec (the dynamic linker
# then runs traced), once its libraries are mapped (preinit) or at its
# entry point (postinit); evaltime.sh tells the three apart
T=$B/test/progs/typed
for e in exec preinit postinit; do
	"$DTRACE" -q -x evaltime=$e -c "$T 1" -n '
	    pid$target:ld-linux-x86-64.so.2:_dl_start:entry,
	    pid$target:a.out:main:entry { printf("%s\n", probefunc); }' \
	    >out 2>err; check evaltime=$e 0 $?
	has evaltime=$e out "^main$"
	if [ $e = exec ]; then
		has evaltime=exec out "^_dl_start$"
	elif grep -q _dl_start out; then
		echo "evaltime=$e: the loader ran traced"
		status=1
	fi
done
"$DTRACE" -x evaltime=main -n BEGIN >out 2>err; check evaltime=main 1 $?
has evaltime=main err "^dtrace: failed to set option -x evaltime=main: only evaltime=exec, preinit and postinit are supported$"
"$DTRACE" -x evaltime=soon -n BEGIN >out 2>err; check evaltime-bad 1 $?
has evaltime-bad err "Invalid value for specified option"
# setenv and unsetenv: the environment of -c processes, in order
FOO2=x "$DTRACE" -q -x setenv=FOO=bar -x setenv=FOO=baz -x unsetenv=FOO2 \
	-c env -n 'BEGIN { }' >out 2>err; check setenv 0 $?
[ "$(grep '^FOO' out)" = "FOO=baz" ] ||
	{ echo "setenv:"; grep '^FOO' out; status=1; }
for o in setenv=FOO unsetenv=FOO=1 setenv==1; do
	"$DTRACE" -x $o -n BEGIN >out 2>err; check $o 1 $?
done

# cpphdrs (-H) and cppargs: the preprocessor's own options
printf '#include <errno.h>\nBEGIN { printf("%%d\\n", EINVAL + FOO); exit(0); }\n' \
	>h.d
"$DTRACE" -q -C -x cppargs='-DFOO=3 -DBAR' -x cpphdrs -s h.d >out 2>err
check cpp-opts 0 $?
has cpp-opts out "^25$"
has cpp-opts err "^\. /usr/include/errno.h$"

# syslibdir: the installed libraries' directory
mkdir -p syslib && echo 'inline int syslib_answer = 42;' >syslib/a.d
"$DTRACE" -q -x syslibdir=$PWD/syslib -n 'BEGIN { trace(syslib_answer);
	exit(0); }' >out 2>err; check syslibdir 0 $?
has syslibdir out "^42$"

# empty: a program with nothing in it compiles; with no probe to trace,
# dtrace says so and ends (it used to wait forever), unless -Z
: >empty.d
"$DTRACE" -s empty.d -c true >out 2>err; check empty-off 1 $?
has empty-off err "empty D program translation unit"
timeout 20 "$DTRACE" -x empty -s empty.d >out 2>err; check empty 1 $?
has empty err "^dtrace: no probes matched$"
"$DTRACE" -x empty -Z -s empty.d -c true >out 2>err; check empty-Z 0 $?

# a boolean option's value, as DTrace reads it: yes/true/on/enable(d)/set
# set it, no/false/off/disable(d)/unset unset it, in any case; anything
# else is refused
printf '#pragma D option quiet=YES\n#pragma D option flowindent=no\nBEGIN { printf("q\\n"); exit(0); }\n' >bool.d
"$DTRACE" -s bool.d >out 2>err; check bool-pragmas 0 $?
[ "$(grep -v '^$' out)" = q ] || { echo "bool-pragmas:"; cat out; status=1; }
for v in no false off disable disabled unset 0 Off; do
	"$DTRACE" -x quiet=$v -n 'BEGIN { exit(0); }' >out 2>err
	check quiet=$v 0 $?
	has quiet=$v out "FUNCTION:NAME"
done
"$DTRACE" -x quiet=maybe -n 'BEGIN { exit(0); }' >out 2>err
check quiet=maybe 1 $?

# core: dtrace dumps core when it exits (none written: no core limit)
(ulimit -H -c 0; exec "$DTRACE" -q -x core -n 'BEGIN { exit(0); }') \
	>out 2>err; check core 134 $?
has core err "^dtrace: forcing a core dump (-x core)$"

exit $status
