/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a constant division by zero. */
BEGIN
{
	trace(1 / 0);
}
