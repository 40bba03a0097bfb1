#!/bin/bash
# SPDX-License-Identifier: MIT
# Every option DTrace has is known by name: one not implemented here is
# refused by name with the reason (never accepted and ignored, nor
# refused as an unknown name; those that work: options_dtrace.sh, those
# of one value here: cmdline_options.sh).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

. "$TESTDIR/sh/lib/status_lib.sh"

# every option of DTrace's that is not implemented is refused by name
for o in amin=x ctfpath=x ctypes=x debugassert disasm=x dtypes=x \
	 encoding=utf8 grabanon iregs=8 jstackframes=10 jstackstrsize=10 \
	 kdefs knodefs lazyload ldpath=/bin/ld linkmode=static lockmem=1m \
	 modpath=x pcapsize=1k pgmax=1 preallocate=1m pspec \
	 scratchsize=1k stdc=a tree=1 tregs=8 udefs unodefs version=2.0 \
	 zone=global cpu=0; do
	"$DTRACE" -x $o -n BEGIN >out 2>err; check $o 1 $?
	has $o err "^dtrace: failed to set option -x ${o%=*}: not supported here: "
done
# -X is DTrace's short form of -x stdc
"$DTRACE" -Xa -n BEGIN >out 2>err; check -X 1 $?
has -X err "^dtrace: failed to set option -x stdc: not supported here: "
# a name DTrace does not know either
"$DTRACE" -x nosuchoption -n BEGIN >out 2>err; check unknown 1 $?
has unknown err "^dtrace: failed to set option -x nosuchoption: Invalid option name$"
exit $status
