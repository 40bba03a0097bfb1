/* SPDX-License-Identifier: MIT */
/*
 * labels: passes a struct whose char * members point to strings (one in
 * a nested struct), a null one and one that points nowhere, for print()'s
 * tests: show(&l) once, then exits 0.  show() is noipa: knowing that it
 * reads l->n only, GCC would drop the stores to the other members.
 */
#include <stddef.h>

struct label {
	const char *name;
	int n;
	struct {
		char *note;
	} inner;
	char *nil;
	char *bad;
};

__attribute__((noipa)) int show(struct label *l)
{
	return l->n;
}

int main(void)
{
	char note[] = "inner note";
	struct label l = { "first", 1, { note }, NULL, (char *)16 };

	if (*(volatile const char *)l.name != 'f')	/* its page is in */
		return 2;
	return show(&l) - 1;
}
