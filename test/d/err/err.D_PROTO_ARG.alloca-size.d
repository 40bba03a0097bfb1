/* SPDX-License-Identifier: MIT */
/* alloca()'s size is a constant. */
BEGIN
{
	trace((uint64_t)alloca(arg0));
}
