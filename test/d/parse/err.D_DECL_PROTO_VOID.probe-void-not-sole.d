/* SPDX-License-Identifier: MIT */
/* void in a probe prototype must be its only parameter. */
provider p {
	probe q(int, void);
};
