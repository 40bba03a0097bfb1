/* SPDX-License-Identifier: MIT */
/* A struct declared but never defined has no members to reach. */
struct fwd *fp;
BEGIN
{
	y = fp->a;
}
