#!/bin/bash
# SPDX-License-Identifier: MIT
# The fuzz corpus and every crash the fuzzers found (test/fuzz/corpus/NAME/,
# crash-* files among them) replayed through each target's plain driver
# (test/fuzz/replay.c): no input may crash, trip a sanitizer or leak (under
# the sanitizer build).  make fuzz grows the corpus; see test/fuzz/README.md.
. "$TESTDIR/sh/lib/test_lib.sh"
shopt -s nullglob
drivers=("$B"/test/fuzz/*-replay)
[ ${#drivers[@]} -gt 0 ] || { echo "no fuzz drivers in $B/test/fuzz"; exit 77; }
for d in "${drivers[@]}"; do
	name=$(basename "$d" -replay)
	corpus=$TESTDIR/fuzz/corpus/$name
	[ -d "$corpus" ] || { echo "$name: no corpus"; status=1; continue; }
	extra=()
	[ "$name" = d ] && extra=("$TESTDIR"/d/*/)	# the D tests seed it
	if ! "$d" "$corpus" "${extra[@]}" >out 2>err; then
		echo "$name: an input failed:"; tail -30 err
		status=1
	fi
done
exit $status
