/* SPDX-License-Identifier: MIT */
/* A void probe parameter may not have a name. */
provider p {
	probe q(void x);
};
