/* SPDX-License-Identifier: MIT */
/* A provider declared again with another type of a probe argument. */
provider p {
	probe q(int, char *);
};
provider p {
	probe q(int, int);
};
