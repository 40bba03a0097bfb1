/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * Declarations, clause forms, comments, macros and constants the lexer must take.
 */
#pragma D option quiet

int g;			// a global
self int s;
inline int TWO = 1 + 1;
typedef struct pair { int a; long b; } pair_t;
enum colour { RED, GREEN = 5, BLUE };

BEGIN,
END
/ g == 0 /
{
	g = TWO; s = 0x10;	/* hex */
	printf("%d %d %d\n", g, s, 017);
	printf("%d %d %d %d\n", sizeof (pair_t), sizeof (int), 'A', BLUE);
	printf("%s|%s\n", "tab\there", "q\"uote");
	exit(0)
}
