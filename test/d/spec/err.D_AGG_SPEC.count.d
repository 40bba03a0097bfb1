/* SPDX-License-Identifier: MIT */
/* No aggregation in a speculative clause. */
BEGIN
{
	speculate(1);
	@c = count();
}
