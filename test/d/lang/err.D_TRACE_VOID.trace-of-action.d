/* SPDX-License-Identifier: MIT */
/* An action's value is void: trace() of it is trace()'s own error. */
BEGIN
{
	trace(trace(1));
}
