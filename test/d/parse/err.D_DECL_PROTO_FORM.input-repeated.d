/* SPDX-License-Identifier: MIT */
/* A native argument's name is used once. */
provider p {
	probe a(int x, long x);
};
