#!/bin/bash
# SPDX-License-Identifier: MIT
# strtok(NULL, ...) with no string before it in the firing raises DTrace's
# run-time error, an invalid address (0x0), whether its result is used or
# not: the ERROR clause runs and its exit() ends the session.  A firing
# starts with no string, the clauses of one firing share it, and once its
# last token is taken strtok(NULL, ...) gives NULL.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/sh/lib/fault_lib.sh"
need_dtrace

badaddr() {
	fault_line "$1" "$2" "invalid address (0x0)"
}

fault "strtok(NULL) first" '
BEGIN { trace(strtok(NULL, ",")); }' \
	"ERROR fault 1 at base+0" "$(badaddr 1 dtrace:::BEGIN)"

fault "strtok(NULL) first, its result unused" '
BEGIN { strtok(strstr("abc", "x"), ","); }' \
	"ERROR fault 1 at base+0" "$(badaddr 1 dtrace:::BEGIN)"

fault "strtok(NULL) in a firing after a string ended" '
BEGIN { x = strtok("a,b", ","); }
BEGIN { printf("%s %d\n", strtok(NULL, ","), strtok(NULL, ",") == NULL); }
BEGIN { printf("%d\n", strtok(NULL, ",") == NULL); }
END { this->t = strtok(NULL, " "); }
BEGIN { exit(0); }' \
	"b 1
1
ERROR fault 1 at base+0" "$(badaddr 4 dtrace:::END)"
exit $status
