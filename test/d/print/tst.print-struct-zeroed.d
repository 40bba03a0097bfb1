/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* print() of a struct lays out every member by its type, nested structs
 * and unions as indented blocks, arrays in brackets, char arrays as
 * strings, enums by name (alloca() memory is zeroed). */
enum state { IDLE, BUSY };

struct inner {
	short s;
	unsigned char c;
};

struct outer {
	int a;
	long l;
	char name[8];
	int v[3];
	struct inner in;
	union {
		int i;
		char b[4];
	} u;
	enum state st;
	void *nil;
	unsigned int bits : 3;
	unsigned int more : 5;
};

BEGIN
{
	print(*(struct outer *)alloca(sizeof(struct outer)));
	exit(0);
}
