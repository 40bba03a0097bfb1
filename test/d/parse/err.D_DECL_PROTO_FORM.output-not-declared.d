/* SPDX-License-Identifier: MIT */
/* A translated argument names the native argument it is translated from;
 * y names none. */
provider p {
	probe a(int x) : (int y);
};
