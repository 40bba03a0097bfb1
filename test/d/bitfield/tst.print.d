/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* print() of a struct shows each named bit-field as DTrace does: its bits
 * in hexadecimal, a negative one not sign-extended; unnamed padding
 * fields and `: 0` show nothing. */
struct flags {
	int neg : 5;
	unsigned pos : 3;
	int : 0;
	unsigned char nib : 4;
	unsigned : 3;
	short sh : 9;
	long long wide : 40;
	char tail;
};
struct flags f;

BEGIN
{
	f.neg = -7; f.pos = 5; f.nib = 10; f.sh = -200;
	f.wide = -123456789012; f.tail = 't';
	print(f);
	exit(0);
}
