/* SPDX-License-Identifier: MIT */
provider p {
	probe a(int x) : (int y);
};
