/* SPDX-License-Identifier: MIT */
/* A member of type void. */
struct foo {
	void v;
};
