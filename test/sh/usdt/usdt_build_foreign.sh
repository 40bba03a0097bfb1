#!/bin/bash
# SPDX-License-Identifier: MIT
# dtrace -G refuses an input object of another machine, naming it, instead
# of writing an x86-64 object to link with it: an object whose ELF header
# says AArch64 (e_machine patched), and one that says big-endian.  Nothing
# is written and the input is left alone.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc
[ "$(uname -m)" = x86_64 ] || exit 77
INC=$TESTDIR/../include
cp "$TESTDIR/usdt/prov.d" "$TESTDIR/usdt/app.c" .
"$DTRACE" -h -s prov.d -o prov.h && cc -O2 -I"$INC" -I. -c -o app.o app.c ||
	exit 1
"$DTRACE" -G -s prov.d -o ok.o app.o || { echo "-G of the x86-64 object failed"; exit 1; }

# patch BYTES at OFFSET of a copy of app.o
patched() {	# NAME OFFSET BYTES
	cp app.o "$1"
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
	cp "$1" "$1.orig"
}
status=0
refused() {	# OBJECT MESSAGE
	rm -f out.o
	"$DTRACE" -G -s prov.d -o out.o "$1" 2>err
	local rc=$?
	if [ $rc != 1 ] || [ "$(cat err)" != "dtrace: $2" ]; then
		echo "$1: exit $rc; stderr:"; cat err; echo "expected: dtrace: $2"
		status=1
	fi
	[ -e out.o ] && { echo "$1: an object was written"; status=1; }
	cmp -s "$1" "$1.orig" || { echo "$1: input modified"; status=1; }
}
patched arm64.o 18 '\267\000'	# e_machine = EM_AARCH64 (183)
refused arm64.o "failed to link arm64.o: its ELF header says AArch64, and dtrace -G writes objects for x86-64"
patched msb.o 5 '\002'		# EI_DATA = ELFDATA2MSB
refused msb.o "failed to link msb.o: its ELF header says big-endian, and dtrace -G writes little-endian objects"
exit $status
