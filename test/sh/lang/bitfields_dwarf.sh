#!/bin/bash
# SPDX-License-Identifier: MIT
# Bit-fields of a traced program's structs, typed from its DWARF
# (bitfields, DW_AT_data_bit_offset): read through args[] (signed ones
# negative, a 60-bit one, one of a packed struct that crosses its type's
# unit), in a copy of the struct (this->f = *args[0]), through copyin(),
# through a struct declared in D with the same members (D's layout is
# GCC's), shown by print(); a store into the program's memory faults; a
# field no load of 8 bytes holds is refused.
# The same reads with the program built -gdwarf-4 (DW_AT_bit_offset); a
# bit-field of the kernel's BTF (curthread->signal->is_child_subreaper).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog bitfields
. "$TESTDIR/sh/lib/check_lib.sh"

PROG='c sizes 24 8\|c -7 5 10 -200 -123456789012 fedcba987654321 -1\|c T 2345678 -33 77\|'
FLAGS='-7 5 10 -200 -123456789012 fedcba987654321 -1'
TIGHT='T 2345678 -33 77'

cat > r.d <<'D'
pid$target:a.out:inspect:entry
{
	printf("sizes %d %d\n", sizeof(struct flags), sizeof(struct tight));
	printf("%d %u %u %d %d %x %d\n", args[0]->neg, args[0]->pos,
	    args[0]->nib, args[0]->sh, args[0]->wide, args[0]->uwide,
	    args[0]->last);
	printf("%c %x %d %d\n", args[1]->tag, args[1]->across, args[1]->sneg,
	    args[1]->after);
	this->f = *args[0];
	printf("%d %u %u %d %d %x %d\n", this->f.neg, this->f.pos,
	    this->f.nib, this->f.sh, this->f.wide, this->f.uwide,
	    this->f.last);
	this->t = (struct tight *)copyin(arg1, sizeof(struct tight));
	printf("%c %x %d %d\n", this->t->tag, this->t->across,
	    this->t->sneg, this->t->after);
}
D
EXPECT="sizes 24 8\|$FLAGS\|$TIGHT\|$FLAGS\|$TIGHT\|"

# dtrace's lines, or the program's ("c ..."): each goes out when its
# process exits, in either order
ours() { grep -v '^c ' out; }
prog() { grep '^c ' out; }

# 1. through args[], a copy and copyin(); the program's own view
"$DTRACE" -q -c "$T" -s r.d >out 2>err
check "reads" "$(ours)" "$EXPECT"
check "program" "$(prog)" "$PROG"

# 2. the program's struct read as one declared in D: the same layout
"$DTRACE" -q -c "$T" -n 'struct dflags {
	int neg : 5;
	unsigned int pos : 3;
	int : 0;
	unsigned char nib : 4;
	unsigned : 3;
	short sh : 9;
	long long wide : 40;
	unsigned long long uwide : 60;
	int last : 1;
};
pid$target:a.out:inspect:entry {
	this->d = (struct dflags *)arg0;
	printf("%d %d %u %u %d %d %x %d\n", sizeof(struct dflags),
	    this->d->neg, this->d->pos, this->d->nib, this->d->sh,
	    this->d->wide, this->d->uwide, this->d->last); }' >out 2>err
check "D layout" "$(ours)" "24 $FLAGS\|"

# 3. print(): each field's bits in hexadecimal
"$DTRACE" -q -c "$T" -n 'pid$target:a.out:inspect:entry {
	print(*args[0]); print(*args[1]); print(*args[2]); }' >out 2>err
check "print" "$(ours)" 'struct flags \{\|    neg = 0x19\|    pos = 0x5\|    nib = 0xa\|    sh = 0x138\|    wide = 0xe34166e5ec\|    uwide = 0xfedcba987654321\|    last = 0x1\|\}\|struct tight \{\|    tag = 0x54\|    across = 0x2345678\|    sneg = 0x5f\|    after = 0x4d\|\}\|struct huge \{\|    low = 0x3\|    big = 0x2aaaaaaaaaaaaaaa\|\}\|'

# 4. the program's memory is not written: the store faults
"$DTRACE" -q -c "$T" -n 'pid$target:a.out:inspect:entry {
	args[0]->neg = 1; }' >out 2>err
check "store" "$(prog)" "$PROG"
grep -q 'invalid address' err ||
	{ echo "FAIL: the store did not fault:"; cat err; status=1; }

# 5. a field of a packed struct that no load of 8 bytes holds is refused
"$DTRACE" -x errtags -c "$T" -n 'pid$target:a.out:inspect:entry {
	trace(args[2]->big); }' >out 2>err
grep -q '\[D_OP_STRUCT\] .*bit-field big spans more than 8 bytes' err ||
	{ echo "FAIL: struct huge:"; cat err; status=1; }

# 6. DWARF 4's DW_AT_bit_offset, counted from the unit's top bit
if command -v gcc >/dev/null; then
	gcc -O1 -g -gdwarf-4 -fno-inline -o bitfields4 \
		"$TESTDIR/progs/bitfields.c" || { echo "cannot build"; exit 1; }
	readelf --debug-dump=info bitfields4 | grep -q DW_AT_bit_offset ||
		{ echo "FAIL: no DW_AT_bit_offset in the -gdwarf-4 build"; status=1; }
	"$DTRACE" -q -c ./bitfields4 -s r.d >out 2>err
	check "dwarf 4" "$(ours)" "$EXPECT"
	check "dwarf 4 program" "$(prog)" "$PROG"
fi

# 7. a kernel bit-field from BTF: the program made itself a child
#    subreaper (signal_struct's is_child_subreaper, bit 0 of its unit);
#    its neighbour has_child_subreaper is 0
if [ -r /sys/kernel/btf/vmlinux ]; then
	"$DTRACE" -q -c "$T" -n 'pid$target:a.out:inspect:entry {
		printf("%d %d\n", curthread->signal->is_child_subreaper,
		    curthread->signal->has_child_subreaper); }' >out 2>err
	check "btf" "$(ours)" '1 0\|'
fi
exit $status
