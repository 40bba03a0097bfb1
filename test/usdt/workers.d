/* SPDX-License-Identifier: MIT */
provider workers {
	probe tick(int);
};
