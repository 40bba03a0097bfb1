/* SPDX-License-Identifier: MIT */
/*
 * bitfields: a program whose structs hold bit-fields of every kind GCC
 * lays out, for the tests that read them from its DWARF types.
 *
 *   bitfields    fills a struct flags, a packed struct tight and a
 *                packed struct huge, passes them to inspect(), prints
 *                "c sizes FLAGS TIGHT" and then the fields as inspect()
 *                saw them, signed ones negative, each line starting
 *                "c " (the program's, not dtrace's)
 *
 * A struct huge holds a field D cannot read (print() shows it).  The
 * program makes itself a child subreaper first, which the kernel keeps
 * in a bit-field of its signal_struct.  The values are the ones the test expects dtrace to read at
 * pid$target:a.out:inspect:entry.
 */
#include <stdio.h>
#include <sys/prctl.h>

struct flags {
	int neg : 5;			/* -7 */
	unsigned int pos : 3;		/* 5 */
	int : 0;			/* the next field starts a new int */
	unsigned char nib : 4;		/* 10 */
	unsigned : 3;			/* padding */
	short sh : 9;			/* -200 */
	long long wide : 40;		/* -123456789012 */
	unsigned long long uwide : 60;	/* 0xfedcba987654321 */
	int last : 1;			/* -1 */
};

/* packed: a field crosses the boundary of its type's unit */
struct __attribute__((packed)) tight {
	char tag;			/* 'T' */
	unsigned int across : 30;	/* 0x2345678 */
	int sneg : 7;			/* -33 */
	short after;			/* 77 */
};

/* packed: a field no load of 8 bytes holds (bits 5 to 66) */
struct __attribute__((packed)) huge {
	unsigned char low : 5;
	unsigned long long big : 62;
};

__attribute__((noinline)) long inspect(struct flags *f, struct tight *t,
				       struct huge *h)
{
	__asm__ volatile("" ::: "memory");
	return f->neg + t->sneg + h->low;
}

int main(void)
{
	struct flags f = { 0 };
	struct tight t = { 0 };
	struct huge h = { 0 };

	f.neg = -7;
	f.pos = 5;
	f.nib = 10;
	f.sh = -200;
	f.wide = -123456789012LL;
	f.uwide = 0xfedcba987654321ULL;
	f.last = -1;
	t.tag = 'T';
	t.across = 0x2345678;
	t.sneg = -33;
	t.after = 77;
	h.low = 3;
	h.big = 0x2aaaaaaaaaaaaaaaULL;
	/* a kernel bit-field of known value: the signal_struct's
	 * is_child_subreaper, read through curthread from the kernel's BTF */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	inspect(&f, &t, &h);
	printf("c sizes %zu %zu\n", sizeof(f), sizeof(t));
	printf("c %d %u %u %d %lld %llx %d\n", f.neg, f.pos, f.nib, f.sh,
	       (long long)f.wide, (unsigned long long)f.uwide, f.last);
	printf("c %c %x %d %d\n", t.tag, t.across, t.sneg, t.after);
	return 0;
}
