/* SPDX-License-Identifier: MIT */
/* A provider declared again may not add a probe. */
provider p {
	probe q(int);
};
provider p {
	probe q(int);
	probe r(int);
};
