/* SPDX-License-Identifier: MIT */
/* A whole struct is not stored through a pointer (its members are). */
struct pt {
	int x;
	int y;
};

BEGIN
{
	this->s = (struct pt *)alloca(8);
	this->t = (struct pt *)alloca(8);
	*this->s = *this->t;
}
