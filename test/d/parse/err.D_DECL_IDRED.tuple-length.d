/* SPDX-License-Identifier: MIT */
/* An associative array declared again with another number of keys. */
int a[int];
int a[int, int];
