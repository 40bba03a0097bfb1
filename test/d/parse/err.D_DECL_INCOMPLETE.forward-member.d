/* SPDX-License-Identifier: MIT */
/* A member of a struct that is only named, never defined. */
struct foo {
	struct nosuch b;
};
