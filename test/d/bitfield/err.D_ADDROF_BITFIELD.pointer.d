/* SPDX-License-Identifier: MIT */
/* A bit-field reached through a pointer has no address either. */
struct s {
	int a;
	int b : 3;
};

BEGIN
{
	this->p = (struct s *)alloca(sizeof(struct s));
	trace(&this->p->b);
	exit(0);
}
