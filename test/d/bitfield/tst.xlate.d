/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* A translator fills the bit-fields of its output struct, each in its own
 * bits: read one by one or as the whole translated struct. */
struct out {
	int lo : 3;
	unsigned hi : 5;
	char c;
};

translator struct out < int x > {
	lo = x;
	hi = x + 20;
	c = 'k';
};

BEGIN
{
	printf("%d %d\n", xlate <struct out> (-2).lo,
	       xlate <struct out> (-2).hi);
	this->o = xlate <struct out> (-2);
	printf("%d %d %c\n", this->o.lo, this->o.hi, this->o.c);
	print(this->o);
	exit(0);
}
