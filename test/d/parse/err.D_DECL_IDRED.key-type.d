/* SPDX-License-Identifier: MIT */
/* An associative array declared again with another key type. */
int a[int];
int a[string];
