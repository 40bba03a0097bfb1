/* SPDX-License-Identifier: MIT */
/* A clause-local variable has no address. */
BEGIN
{
	this->x = 1;
	trace(&this->x);
}
