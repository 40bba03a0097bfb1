/* SPDX-License-Identifier: MIT */
/* Two members of one name: the member is not defined (DTrace's tag). */
struct foo {
	int x;
	char x;
};
