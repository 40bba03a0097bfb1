/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* String keys, sorted by value. */
BEGIN
{
	@c["beta"] = count();
	@c["beta"] = count();
	@c["alpha"] = count();
	@c["gamma"] = count();
	@c["gamma"] = count();
	@c["gamma"] = count();
	exit(0);
}
