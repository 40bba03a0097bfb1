#!/bin/bash
# SPDX-License-Identifier: MIT
# Options that DTrace scripts and users rely on: -f and -m name the
# fields their option says, options may follow the macro arguments,
# -x defaultargs / argref, stackframes, dynvarsize and strip do what they
# say, an option of one value here (bufresize, late, linktype) refuses
# DTrace's others by name, and anonymous tracing is refused by name
# (DTrace's other options: options_dtrace.sh, options_refused.sh).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

. "$TESTDIR/sh/lib/status_lib.sh"

# -m [provider:]module, -f [[provider:]module:]function
"$DTRACE" -l -m dtrace: >out 2>err; check m-provider 0 $?
lines m-provider out 4
"$DTRACE" -l -f dtrace:: >out 2>err; check f-provider 0 $?
lines f-provider out 4
"$DTRACE" -l -f nosuch::x >out 2>err; check f-none 0 $?
has f-none err "failed to match nosuch::x:"
"$DTRACE" -l -P dtrace:x >out 2>err; check P-fields 1 $?
has P-fields err "too many fields"
# a whole description is taken whole
"$DTRACE" -l -f dtrace:::BEGIN >out 2>err; check f-whole 0 $?
lines f-whole out 2

# options after the operands; "--" ends the options
"$DTRACE" -n 'BEGIN { trace($1); exit(0); }' 5 -q >out 2>err
check after-args 0 $?
has after-args out "^5$"
"$DTRACE" -q -n 'BEGIN { printf("%s\n", $$1); exit(0); }' -- -q >out 2>err
check dashdash 0 $?
has dashdash out "^-q$"

# defaultargs: a missing $1 is 0, $$2 ""; argref: $1 may go unused
"$DTRACE" -q -x defaultargs -n 'BEGIN { printf("%d [%s]\n", $1, $$2);
	exit(0); }' >out 2>err; check defaultargs 0 $?
has defaultargs out '^0 \[\]$'
"$DTRACE" -q -n 'BEGIN { exit(0); }' 7 >out 2>err; check argref-off 1 $?
has argref-off err "extraneous argument '7'"
"$DTRACE" -q -x argref -n 'BEGIN { exit(0); }' 7 >out 2>err
check argref 0 $?

# stackframes: stack()'s default depth
"$DTRACE" -q -x stackframes=1 -n 'BEGIN { stack(); exit(0); }' >out 2>err
check stackframes 0 $?
[ "$(grep -c 0x out)" = 1 ] ||
	{ echo "stackframes=1:"; cat out; status=1; }
"$DTRACE" -x stackframes=0 -n BEGIN >out 2>err; check stackframes-0 1 $?

# dynvarsize: a map of 16-byte elements (8-byte key, 8-byte value) holds
# 4 in 64 bytes; the fifth store is a dynamic variable drop
"$DTRACE" -q -x dynvarsize=64 -n 'BEGIN { a[1] = 1; a[2] = 2; a[3] = 3;
	a[4] = 4; a[5] = 5; printf("%d %d\n", a[4], a[5]); exit(0); }' \
	>out 2>err; check dynvarsize 0 $?
has dynvarsize out "^4 0$"
has dynvarsize err "^dtrace: 1 dynamic variable drop$"

# options of one value here: that value is accepted, DTrace's others are
# refused by name (bufpolicy: the three work, test/d/buf)
for o in bufresize=manual late=static linktype=elf bufpolicy=switch; do
	"$DTRACE" -q -x $o -n 'BEGIN { exit(0); }' >out 2>err; check $o 0 $?
done
for o in bufresize=auto late=dynamic linktype=dof; do
	"$DTRACE" -x $o -n BEGIN >out 2>err; check $o 1 $?
	has $o err "^dtrace: failed to set option -x $o: only ${o%=*}=[a-z]* is supported$"
done
# strip: -G objects never carry D source; a flag takes no value
"$DTRACE" -q -x strip -n 'BEGIN { exit(0); }' >out 2>err; check strip 0 $?
"$DTRACE" -x strip=1 -n BEGIN >out 2>err; check strip=1 1 $?

# temporal: records are read in the order they were written
"$DTRACE" -q -x temporal -n 'BEGIN { printf("a\n"); exit(0); }' >out 2>err
check temporal 0 $?
has temporal out "^a$"
# cleanrate: dynamic variables are freed as soon as they are assigned 0,
# there is nothing to clean; the value is checked
"$DTRACE" -q -n 'BEGIN { exit(0); }' -x cleanrate=101hz >out 2>err
check cleanrate 0 $?
"$DTRACE" -q -n 'BEGIN { exit(0); }' -x cleanrate=fast >out 2>err
check cleanrate-bad 1 $?

# anonymous tracing is refused by name
for o in -A -a; do
	"$DTRACE" $o -n BEGIN >out 2>err; check "$o" 1 $?
	has "$o" err "^dtrace: anonymous tracing ($o) is not supported"
done

# --help after other options
"$DTRACE" -q --help >out 2>err; check help 0 $?
has help out "^Usage: dtrace"

exit $status
