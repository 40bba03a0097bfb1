/* SPDX-License-Identifier: MIT */
/* A member of a thread-local struct variable has no address (one of a
 * global has: sh/lang/fault_darray_pointer.sh). */
struct pt { int x; int y; };
self struct pt v;

BEGIN
{
	trace(&self->v.y);
}
