/* SPDX-License-Identifier: MIT */
provider p {
	probe a();
	probe a(int);
};
