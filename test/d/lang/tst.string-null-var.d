/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* A NULL string stored in a variable of any kind reads back as NULL
 * (DTrace); an empty string stays a string, and an unset global string
 * is the empty string, not NULL.  NULL compares with strings as "". */
string never;

BEGIN
{
	g = strchr("abc", 'z');
	this->l = strstr("abc", "zz");
	self->t = strrchr("abc", 'z');
	a[1] = strchr("abc", 'z');
	printf("null: %d %d %d %d\n", g == NULL, this->l == NULL,
	    self->t == NULL, a[1] == NULL);
	printf("copied: %d %d\n", g == this->l, self->t == a[1]);
}

BEGIN
{
	g = "x";
	this->l = "x";
	self->t = "x";
	g = NULL;
	this->l = NULL;
	self->t = NULL;
	printf("assigned NULL: %d %d %d\n", g == NULL, this->l == NULL,
	    self->t == NULL);
}

BEGIN
{
	g = "";
	this->l = "";
	printf("empty: %d %d [%s] [%s]\n", g == NULL, this->l == NULL, g,
	    this->l);
	printf("never: %d [%s]\n", never == NULL, never);
	g = NULL;
	printf("NULL as a string: %d %d %d\n", g == "", g < "a", g != "a");
}

BEGIN
{
	exit(0);
}
