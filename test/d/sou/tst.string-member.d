/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * A string member of a struct variable (global, thread-local,
 * clause-local, in an associative array) holds strsize bytes: assigned,
 * read, compared, copied with its struct and printed.
 */
struct rec {
	int id;
	string name;
	char tail;
};

struct rec g;
self struct rec t;

BEGIN
{
	g.id = 1;
	g.name = "alpha";
	g.tail = 'z';
	printf("%d %s %c %d\n", g.id, g.name, g.tail, strlen(g.name));
	g.name = strjoin(g.name, "-beta");
	printf("%s %d\n", g.name, g.name == "alpha-beta");
	self->t = g;
	self->t.name = "copy";
	printf("%s %s\n", g.name, self->t.name);
	this->r = g;
	printf("%s\n", this->r.name);
	a[1] = g;
	a[1].name = "assoc";
	printf("%s %s\n", a[1].name, g.name);
	printf("%d\n", sizeof (struct rec));
	print(g);
	printf("\n");
	exit(0);
}
