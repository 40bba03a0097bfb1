#!/bin/bash
# SPDX-License-Identifier: MIT
# commit() and discard() of an id that names no speculation (above nspec,
# or negative) raise DTrace's run-time error, an illegal operation: the
# ERROR clause runs and its exit() ends the session.  commit() of 0, or
# discard() of a speculation that is not active, is no error.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/sh/lib/fault_lib.sh"
need_dtrace

illop() {
	fault_line "$1" dtrace:::BEGIN "illegal operation"
}

fault "commit() of no speculation" '
BEGIN { commit(1234); }' \
	"ERROR fault 3 at base+0" "$(illop 1)" -x nspec=2

fault "discard() of no speculation" '
BEGIN { discard(3); }' \
	"ERROR fault 3 at base+0" "$(illop 1)" -x nspec=2

fault "commit() of a negative id" '
BEGIN { x = -1; commit(x); }' \
	"ERROR fault 3 at base+0" "$(illop 1)" -x nspec=2

fault "commit() of 0 and of an inactive speculation go by" '
BEGIN { commit(0); }
BEGIN { discard(2); }
BEGIN { printf("still running\n"); }
BEGIN { discard(-5); }' \
	"still running
ERROR fault 3 at base+0" "$(illop 4)" -x nspec=2
exit $status
