/* SPDX-License-Identifier: MIT */
/* An inline defined as an xlate (as DTrace's libraries define curpsinfo)
 * reads the translated members through -> and . */
#pragma D option quiet

struct info {
	int id;
	int twice;
};

translator struct info < int X > {
	id = X;
	twice = X + X;
};

inline struct info *cur = xlate <struct info *> (17);
inline struct info val = xlate <struct info> (4);

BEGIN
{
	printf("%d %d %d\n", cur->id, cur->twice, val.twice);
	exit(0);
}
