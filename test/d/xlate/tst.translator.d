/* SPDX-License-Identifier: MIT */
/* Members read through xlate <T> (e).m and xlate <T *> (e)->m: each is
 * the translator's expression with the parameter replaced, converted to
 * the member's type; two translators to one output type, chosen by the
 * input's type; a translator with no members. */
#pragma D option quiet

struct out_s {
	int dbl;
	char low;
	long sq;
	string size;
};

struct other_s {
	int n;
};

translator struct out_s < int X > {
	dbl = X * 2;
	low = X;
	sq = (long)X * X;
	size = X > 10 ? "big" : "small";
};

translator struct out_s < string S > {
	dbl = strlen(S) * 2;
	size = S;
};

translator struct other_s < int X > {
};

BEGIN
{
	v = 300;
	printf("%d %d %d %s\n", xlate <struct out_s> (v).dbl,
	    xlate <struct out_s> (v).low, xlate <struct out_s *> (v)->sq,
	    xlate <struct out_s *> (3)->size);
	printf("%d %s\n", xlate <struct out_s> ("hello").dbl,
	    xlate <struct out_s> ("hello").size);
	exit(0);
}
