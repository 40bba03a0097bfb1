/* SPDX-License-Identifier: MIT */
/* A string member is not read through a pointer. */
struct s { string name; int x; };

BEGIN
{
	this->p = (struct s *)alloca(sizeof (struct s));
	trace(this->p->name);
}
