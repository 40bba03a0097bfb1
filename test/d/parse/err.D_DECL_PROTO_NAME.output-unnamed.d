/* SPDX-License-Identifier: MIT */
/* Translated arguments must be named, even where the native ones are not:
 * the name says which native argument each is translated from. */
provider p {
	probe a(int, long) : (long, int);
};
